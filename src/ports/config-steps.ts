/**
 * The configuration loader as the command phases use it (NewKubeletCommand's steps); implemented
 * over src/domain/config in src/bin/config-steps.ts.
 */
import type { NotHonoured } from '../domain/config/not-honoured.js';
import type { FieldError, KubeletConfiguration, KubeletFlags } from '../domain/config/types.js';

export type { FieldError, NotHonoured };

/** The command line as parsed: kubelet flags by their Go field names, and which flags were given. */
export interface ParsedArgs {
  flags: KubeletFlags;
  given: string[];
}

/** The configuration loader's steps, in the Go kubelet's order (NewKubeletCommand). */
export interface ConfigSteps {
  parse(argv: string[]): ParsedArgs;
  featureGates(parsed: ParsedArgs): Record<string, boolean>;
  validateFlags(parsed: ParsedArgs): FieldError[];
  /**
   * The effective configuration: file, drop-ins and flags, defaulted (every field present); and the
   * files' strict decoding errors (duplicated keys, unknown fields), each naming its file and field,
   * which Go logs before it decodes those files leniently and goes on.
   */
  load(parsed: ParsedArgs): Promise<{ config: KubeletConfiguration; gates: Record<string, boolean>; strictDecodingErrors: string[] }>;
  validateConfig(config: KubeletConfiguration, gates: Record<string, boolean>): FieldError[];
  /** The settings accepted but not acted on (known once loaded): one start-up warning each. */
  notActedOn(): NotHonoured[];
}
