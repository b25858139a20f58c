/**
 * The effective configuration, built in the Go kubelet's order (cmd/kubelet/app/server.go):
 * 1. with --config: the file is decoded, its relative paths resolved against its directory, and the
 *    v1beta1 defaults applied; without it: the flag-only baseline (defaults + legacy defaults);
 * 2. each --config-dir drop-in (already sorted by the caller) is merged over that with a JSON merge
 *    patch; a drop-in is not defaulted, and its nulls change nothing (Go unmarshals the patched JSON
 *    into the existing struct);
 * 3. the flags actually given on the command line are applied last (kubeletConfigFlagPrecedence):
 *    each replaces its field (a map flag replaces the whole map), except --feature-gates, which is
 *    merged over the configured gates;
 * 4. feature gates are resolved and the configuration and flags validated; settings kubelet-ts
 *    accepts but does not act on are listed, or refused where ignoring them would weaken the node.
 * Every problem (decoding, gates, validation) is returned together. A file's duplicated or unknown
 * field is a warning, not a problem: Go's strict decoding fails on it, and Go then decodes the file
 * leniently (the last value of a duplicated key, no unknown field) and starts, saying why in its log.
 *
 * Difference from Go: without --config, Go defaults before it parses --feature-gates, so a gate
 * switched off on the command line still gets its gated default (and then fails validation); we
 * default with the command line's gates.
 */
import { CONFIG_PATH_FIELDS } from './absolute-paths.js';
import { applyKubeletConfigurationDefaults, flagOnlyDefaultConfiguration } from './defaults.js';
import { decodeKubeletConfiguration, isPlainObject } from './decode.js';
import { resolveFeatureGates, type FeatureGates } from './feature-gates.js';
import { lackingGatesSetOn } from './feature-gate-support.js';
import { findFlag } from './flag-table.js';
import { findNotHonoured, type NotHonoured } from './not-honoured.js';
import { getAtPath, jsonMergePatch, setAtPath } from './merge.js';
import { validateKubeletConfiguration, validateKubeletFlags } from './validate.js';
import type { ParsedCommandLine } from './command-line.js';
import type { FieldError, KubeletConfiguration, KubeletConfigurationDocument } from './types.js';

export interface EffectiveConfigInput {
  parsed: ParsedCommandLine;
  /** The parsed --config document (plain data), if --config was given. */
  file?: unknown;
  fileName?: string;
  /** The file's duplicated keys, as the parser words them (its last value is in `file`). */
  fileStrictErrors?: string[];
  /** Parsed drop-ins in the order they apply (lexical by path), each with its duplicated keys. */
  dropIns?: { name: string; doc: unknown; strictErrors?: string[] }[];
}

export interface EffectiveConfig {
  config: KubeletConfiguration;
  gates: FeatureGates;
  /** Settings accepted but not acted on (field-support.ts): one start-up warning each. */
  notHonoured: NotHonoured[];
  /** Each field Go's strict decoding fails on, naming the file: `<file>: strict decoding error: unknown field "x"`. */
  warnings: string[];
  errors: FieldError[];
}

export function buildEffectiveConfig(input: EffectiveConfigInput): EffectiveConfig {
  const { parsed } = input;
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const flagGates = (parsed.configFromFlags.featureGates ?? {}) as Record<string, boolean>;

  let config: KubeletConfiguration;
  if (input.file !== undefined) {
    const fileName = input.fileName ?? parsed.flags.kubeletConfigFile;
    const decoded = decodeKubeletConfiguration(input.file);
    errors.push(...decoded.errors.map((e) => inFile(e, fileName)));
    warnings.push(...strictDecodingErrors(fileName, input.fileStrictErrors ?? [], decoded.unknownFields));
    const doc = decoded.doc;
    resolveRelativePaths(doc, fileName);
    const fileGates = (doc.featureGates ?? {}) as Record<string, boolean>;
    config = applyKubeletConfigurationDefaults(doc, resolveFeatureGates({ field: 'featureGates', gates: fileGates }, { field: '--feature-gates', gates: flagGates }).gates);
  } else {
    config = flagOnlyDefaultConfiguration(resolveFeatureGates({ field: '--feature-gates', gates: flagGates }).gates);
  }

  for (const dropIn of input.dropIns ?? []) {
    const decoded = decodeKubeletConfiguration(dropIn.doc);
    errors.push(...decoded.errors.map((e) => inFile(e, dropIn.name)));
    warnings.push(...strictDecodingErrors(dropIn.name, dropIn.strictErrors ?? [], decoded.unknownFields));
    config = jsonMergePatch(config, withoutNulls(decoded.doc)) as KubeletConfiguration;
  }

  const configuredGates = { ...config.featureGates };
  applyGivenFlags(config, parsed);

  const gateSources = [
    { field: 'featureGates', gates: withoutKeys(configuredGates, flagGates) },
    { field: '--feature-gates', gates: flagGates },
  ];
  const resolved = resolveFeatureGates(...gateSources);
  errors.push(...resolved.errors);
  errors.push(...validateKubeletConfiguration(config, resolved.gates));
  errors.push(...validateKubeletFlags(parsed.flags));
  const honesty = findNotHonoured(config, resolved.gates);
  // A value already invalid is reported once, as invalid.
  const invalidFields = new Set(errors.map((e) => e.field));
  errors.push(...honesty.errors.filter((e) => !invalidFields.has(e.field)), ...lackingGatesSetOn(gateSources));
  return { config, gates: resolved.gates, notHonoured: honesty.warnings, warnings, errors };
}

/** Step 3: the given config-backed flags, in the order given, over the configuration. */
function applyGivenFlags(config: KubeletConfiguration, parsed: ParsedCommandLine): void {
  // The flags name their fields by JSON path (flag table); the values were parsed by each flag's kind,
  // which no type ties to the field at that path, so the writes go through the path.
  const target = config as unknown as Record<string, unknown>; // cast: writes by JSON path, see above
  for (const name of parsed.given) {
    const spec = findFlag(name);
    if (spec === undefined || !('config' in spec.target)) continue;
    const path = spec.target.config;
    const value = structuredClone(getAtPath(parsed.configFromFlags, path));
    if (path === 'featureGates') setAtPath(target, path, { ...config.featureGates, ...(value as Record<string, boolean>) });
    else setAtPath(target, path, value);
  }
}

function resolveRelativePaths(doc: KubeletConfigurationDocument, fileName: string): void {
  const slash = fileName.lastIndexOf('/');
  const dir = slash < 0 ? '.' : fileName.slice(0, slash) || '/';
  for (const path of CONFIG_PATH_FIELDS) {
    const value = getAtPath(doc, path);
    if (typeof value === 'string' && value !== '' && !value.startsWith('/')) {
      setAtPath(doc as Record<string, unknown>, path, dir === '.' ? value : `${dir.replace(/\/+$/, '')}/${value}`);
    }
  }
}

/** A file's errors that only strict decoding has, one line each, worded as Go's strict decoding error. */
function strictDecodingErrors(fileName: string, duplicates: readonly string[], unknownFields: readonly string[]): string[] {
  return [...duplicates, ...unknownFields.map((path) => `unknown field ${JSON.stringify(path)}`)].map((e) => `${fileName}: strict decoding error: ${e}`);
}

function inFile(error: FieldError, fileName: string): FieldError {
  return { ...error, message: `${fileName}: ${error.message}` };
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}

function withoutKeys<T>(record: Record<string, T>, drop: Record<string, unknown>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !(k in drop)));
}
