/**
 * The configuration loader as the command phases use it (NewKubeletCommand's steps); implemented
 * over src/domain/config in src/bin/config-steps.ts.
 */
export interface FieldError {
  field: string;
  message: string;
  value?: unknown;
}

/** The command line as parsed: kubelet flags by their Go field names, and which flags were given. */
export interface ParsedArgs {
  flags: Record<string, unknown>;
  given: string[];
}

/** The configuration loader's steps, in the Go kubelet's order (NewKubeletCommand). */
export interface ConfigSteps {
  parse(argv: string[]): ParsedArgs;
  featureGates(parsed: ParsedArgs): Record<string, boolean>;
  validateFlags(parsed: ParsedArgs): FieldError[];
  load(parsed: ParsedArgs): Promise<{ config: Record<string, unknown>; gates: Record<string, boolean> }>;
  validateConfig(config: Record<string, unknown>, gates: Record<string, boolean>): FieldError[];
}
