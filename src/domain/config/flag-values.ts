/**
 * Parsing one command-line value of each flag kind into its configuration form, with pflag's and
 * component-base cliflag's rules and messages:
 * - bool: strconv.ParseBool (1, t, T, TRUE, true, True and the false forms);
 * - integers: strconv.ParseInt with base prefix (0x, 0o, 0b, leading 0 octal), range-checked;
 * - maps: `k=v,k2=v2` (cliflag.MapStringString), `k<v` (eviction), `k:v` (manifest-url-header),
 *   one `k=v` per use for the NoSplit kinds; the first use replaces the previous value, later
 *   uses on the same command line add to it;
 * - taints: `key[=value]:Effect`; reserved memory: `numa:resource=quantity,...`; vmodule: `pattern=N`.
 * Each parser throws FlagValueError with the text that follows `invalid argument "<v>" for "<flag>" flag: `.
 */
import { normalizeGoDuration } from './duration.js';
import { parseIpSloppy } from '../net/ip-address.js';
import { isQuantity } from '../resources/quantity.js';
import type { FlagKind } from './flag-table.js';
import type { MemoryReservation, VModuleItem } from './types.js';
import { TAINT_EFFECTS, type Taint } from '../api/common-types.js';

export class FlagValueError extends Error {
  override readonly name = 'FlagValueError';
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

export function parseBool(text: string): boolean {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw new FlagValueError(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}

export function parseInteger(text: string, bits: 32 | 64, unsigned = false): number {
  const fn = unsigned ? 'strconv.ParseUint' : 'strconv.ParseInt';
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/.exec(text);
  if (m === null || (unsigned && m[1] !== '')) throw new FlagValueError(`${fn}: parsing ${JSON.stringify(text)}: invalid syntax`);
  const body = (m[2] ?? '').replace(/_/g, '');
  const magnitude = /^0[xXoObB]/.test(body) ? Number(body) : body.length > 1 && body.startsWith('0') ? parseInt(body, 8) : Number(body);
  const value = m[1] === '-' ? -magnitude : magnitude;
  const [min, max] = unsigned ? [0, 2 ** bits - 1] : [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
  if (!Number.isSafeInteger(value) && bits === 64) throw new FlagValueError(`${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  if (value < min || value > max) throw new FlagValueError(`${fn}: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** Splits a comma list, dropping empty items (cliflag skips them). */
function items(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function pairs(text: string, sep: string, expect: string): [string, string][] {
  return items(text).map((item) => {
    const at = item.indexOf(sep);
    if (at < 0) throw new FlagValueError(`malformed pair, expect string${expect}string`);
    return [item.slice(0, at).trim(), item.slice(at + 1).trim()];
  });
}

/** csv list as pflag's StringSlice reads it (no quoting support beyond plain commas). */
function csv(text: string): string[] {
  return text === '' ? [] : text.split(',');
}

function parseTaint(item: string): Taint {
  const colon = item.lastIndexOf(':');
  if (colon < 0) throw new FlagValueError(`invalid taint spec: ${item}`);
  const effect = item.slice(colon + 1);
  const keyValue = item.slice(0, colon);
  if (!TAINT_EFFECTS.includes(effect)) {
    throw new FlagValueError(`invalid taint effect: ${effect}, unsupported taint effect`);
  }
  const eq = keyValue.indexOf('=');
  const key = eq < 0 ? keyValue : keyValue.slice(0, eq);
  if (key === '') throw new FlagValueError(`invalid taint spec: ${item}`);
  return eq < 0 ? { key, effect } : { key, value: keyValue.slice(eq + 1), effect };
}

function parseReservedMemory(text: string): MemoryReservation {
  const colon = text.indexOf(':');
  if (colon < 0) throw new FlagValueError(`the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got ${text}`);
  const numaNode = parseInteger(text.slice(0, colon), 32);
  const limits: Record<string, string> = {};
  for (const [name, quantity] of pairs(text.slice(colon + 1), '=', '=')) {
    if (!isQuantity(quantity)) throw new FlagValueError(`failed to parse the quantity ${JSON.stringify(quantity)} of ${name}`);
    limits[name] = quantity;
  }
  return { numaNode, limits };
}

function parseVModule(text: string): VModuleItem[] {
  return items(text).map((item) => {
    const eq = item.lastIndexOf('=');
    if (eq <= 0) throw new FlagValueError(`${JSON.stringify(item)} does not have the pattern=N format`);
    return { filePattern: item.slice(0, eq), verbosity: parseInteger(item.slice(eq + 1), 32, true) };
  });
}

/**
 * Parses one occurrence's text. `previous` is this flag's value from earlier occurrences on the same
 * command line (undefined on the first), for the kinds where repeats accumulate.
 */
export function parseFlagValue(kind: FlagKind, text: string, previous: unknown): unknown {
  switch (kind) {
    case 'string':
      return text;
    case 'bool':
      return parseBool(text);
    case 'int32':
      return parseInteger(text, 32);
    case 'int64':
      return parseInteger(text, 64);
    case 'uint32':
      return parseInteger(text, 32, true);
    case 'duration':
      try {
        return normalizeGoDuration(text);
      } catch (err) {
        throw new FlagValueError((err as Error).message);
      }
    case 'ip':
      if (parseIpSloppy(text) === null) throw new FlagValueError(`${JSON.stringify(text)} is not a valid IP address`);
      return text;
    case 'quantity':
      if (!isQuantity(text)) throw new FlagValueError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
      return text;
    case 'stringSlice':
      return [...((previous as string[] | undefined) ?? []), ...csv(text)];
    case 'mapStringString':
      return { ...((previous as Record<string, string> | undefined) ?? {}), ...Object.fromEntries(pairs(text, '=', '=')) };
    case 'mapStringStringNoSplit': {
      const eq = text.indexOf('=');
      if (eq < 0) throw new FlagValueError('malformed pair, expect string=string');
      return { ...((previous as Record<string, string> | undefined) ?? {}), [text.slice(0, eq).trim()]: text.slice(eq + 1).trim() };
    }
    case 'mapStringBool': {
      const out: Record<string, boolean> = { ...((previous as Record<string, boolean> | undefined) ?? {}) };
      for (const [key, value] of pairs(text, '=', '=')) {
        try {
          out[key] = parseBool(value);
        } catch (err) {
          throw new FlagValueError(`invalid value of ${key}: ${value}, err: ${(err as Error).message}`);
        }
      }
      return out;
    }
    case 'langleMap':
      return { ...((previous as Record<string, string> | undefined) ?? {}), ...Object.fromEntries(pairs(text, '<', '<')) };
    case 'colonMultimap': {
      const out: Record<string, string[]> = structuredClone((previous as Record<string, string[]> | undefined) ?? {});
      for (const [key, value] of pairs(text, ':', ':')) out[key] = [...(out[key] ?? []), value];
      return out;
    }
    case 'taints':
      return items(text).map(parseTaint);
    case 'reservedMemory':
      return [...((previous as MemoryReservation[] | undefined) ?? []), parseReservedMemory(text)];
    case 'vmodule':
      return parseVModule(text);
  }
}

/** pflag's type word for --help (`string`, `int32`, `mapStringString`, ...). */
export function flagTypeWord(kind: FlagKind): string {
  switch (kind) {
    case 'bool':
      return '';
    case 'ip':
      return 'ip';
    case 'stringSlice':
      return 'strings';
    case 'langleMap':
    case 'mapStringStringNoSplit':
      return 'mapStringString';
    case 'taints':
      return '[]Taint';
    case 'reservedMemory':
      return 'reserved-memory';
    case 'vmodule':
      return 'pattern=N,...';
    default:
      return kind;
  }
}
