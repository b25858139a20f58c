/**
 * The kubelet's command line, parsed the way its pflag flag set does: `--flag=value` and
 * `--flag value`, booleans as `--flag` or `--flag=true|false` (a bare boolean never takes the next
 * word), `-v 2`/`-v=2`/`-v2`, underscores read as dashes (`--max_pods`), `--` ends the flags.
 * Unknown flags and positional words are errors naming them, and every problem on the line is
 * reported at once (Go stops at the first).
 */
import { KubeletError } from '../errors.js';
import { DEFAULT_KUBELET_FLAGS, findFlag, findShortFlag, type FlagSpec } from './flag-table.js';
import { FlagValueError, parseFlagValue } from './flag-values.js';
import { setAtPath } from './merge.js';
import type { KubeletConfigurationDocument, KubeletFlags } from './types.js';

export interface ParsedCommandLine {
  flags: KubeletFlags;
  /** Only the KubeletConfiguration fields whose flags were given, nested as in the document. */
  configFromFlags: KubeletConfigurationDocument;
  /** Canonical names of the flags given, in order of first use. */
  given: string[];
  help: boolean;
  version: boolean;
  /** `--version=raw`. */
  versionRaw: boolean;
  /** Deprecation notices for the flags used, in Go's wording (`Flag --x has been deprecated, ...`). */
  warnings: string[];
}

interface Occurrence {
  spec: FlagSpec;
  text: string | undefined; // undefined: given without a value (booleans, --help, --version)
  as: string; // how it was written, for messages
}

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const unknown: string[] = [];
  const invalid: string[] = [];
  const occurrences: Occurrence[] = [];
  const takesValue = (spec: FlagSpec): boolean => spec.kind !== 'bool' && !('meta' in spec.target);

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      for (const word of argv.slice(i + 1)) unknown.push(`unknown command ${JSON.stringify(word)} for "kubelet"`);
      break;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      if (name === '' || name.startsWith('-')) {
        invalid.push(`bad flag syntax: ${arg}`);
        continue;
      }
      const spec = findFlag(name);
      if (spec === undefined) {
        unknown.push(`unknown flag: --${name}`);
        continue;
      }
      if (eq >= 0) occurrences.push({ spec, text: body.slice(eq + 1), as: `--${spec.name}` });
      else if (!takesValue(spec)) occurrences.push({ spec, text: undefined, as: `--${spec.name}` });
      else if (i + 1 < argv.length) occurrences.push({ spec, text: argv[++i] as string, as: `--${spec.name}` });
      else invalid.push(`flag needs an argument: --${spec.name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg.slice(1, 2);
      const spec = findShortFlag(letter);
      if (spec === undefined) {
        unknown.push(`unknown shorthand flag: '${letter}' in ${arg}`);
        continue;
      }
      const attached = arg.slice(2);
      const as = `-${letter}`;
      if (attached.startsWith('=')) occurrences.push({ spec, text: attached.slice(1), as });
      else if (attached !== '' && takesValue(spec)) occurrences.push({ spec, text: attached, as });
      else if (attached !== '') unknown.push(`unknown shorthand flag: '${attached.slice(0, 1)}' in ${arg}`);
      else if (!takesValue(spec)) occurrences.push({ spec, text: undefined, as });
      else if (i + 1 < argv.length) occurrences.push({ spec, text: argv[++i] as string, as });
      else invalid.push(`flag needs an argument: '${letter}' in ${arg}`);
      continue;
    }
    unknown.push(`unknown command ${JSON.stringify(arg)} for "kubelet"`);
  }

  const flags = structuredClone(DEFAULT_KUBELET_FLAGS) as KubeletFlags;
  const configFromFlags: Record<string, unknown> = {};
  const values = new Map<string, unknown>(); // canonical name -> value so far on this command line
  const given: string[] = [];
  const warnings: string[] = [];
  let help = false;
  let version = false;
  let versionRaw = false;

  for (const { spec, text, as } of occurrences) {
    if (!given.includes(spec.name)) {
      given.push(spec.name);
      if (spec.deprecated !== undefined) warnings.push(`Flag --${spec.name} has been deprecated, ${spec.deprecated}`);
    }
    const target = spec.target;
    if ('meta' in target) {
      if (target.meta === 'help') {
        try {
          help = text === undefined ? true : parseFlagValue('bool', text, undefined) as boolean;
        } catch (err) {
          invalid.push(`invalid argument ${JSON.stringify(text)} for "${as}" flag: ${(err as Error).message}`);
        }
      } else if (text === 'raw') {
        version = true;
        versionRaw = true;
      } else {
        try {
          version = text === undefined ? true : parseFlagValue('bool', text, undefined) as boolean;
          versionRaw = false;
        } catch {
          invalid.push(`invalid argument ${JSON.stringify(text)} for "${as}" flag: valid values are true, false and raw`);
        }
      }
      continue;
    }
    let value: unknown;
    try {
      value = parseFlagValue(spec.kind, text ?? 'true', values.get(spec.name));
    } catch (err) {
      if (!(err instanceof FlagValueError)) throw err;
      invalid.push(`invalid argument ${JSON.stringify(text ?? '')} for "${as === '-v' ? '-v, --v' : as}" flag: ${err.message}`);
      continue;
    }
    values.set(spec.name, value);
    if ('config' in target) setAtPath(configFromFlags, target.config, value);
    // The flag table names the field by string and the value was parsed by the flag's declared kind;
    // no type ties a table row's kind to that KubeletFlags field's type, so the write goes by name.
    else (flags as unknown as Record<string, unknown>)[target.flags] = value; // cast: a write by field name, see above
  }

  if (unknown.length > 0 || invalid.length > 0) {
    throw new KubeletError(unknown.length > 0 ? 'KLT_ERR_FLAG_UNKNOWN' : 'KLT_ERR_FLAG_INVALID', [...unknown, ...invalid].join('\n'));
  }
  if (!given.includes('event-log')) flags.eventLog = `${flags.rootDirectory.replace(/\/+$/, '')}/events/`;
  return { flags, configFromFlags: configFromFlags as KubeletConfigurationDocument, given, help, version, versionRaw, warnings };
}
