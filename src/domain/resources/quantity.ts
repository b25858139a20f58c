/**
 * Kubernetes resource quantities ("100m", "0.5", "128Mi", "1e3"): the one parser of the codebase,
 * with the grammar of Go's resource.ParseQuantity and its exact value.
 *
 *   <quantity>  ::= <sign>? <number> <suffix>
 *   <number>    ::= <digits> | <digits>. | <digits>.<digits> | .<digits>
 *   <suffix>    ::= "" | n u m k M G T P E (decimal SI) | Ki Mi Gi Ti Pi Ei (binary SI)
 *                 | e<signed integer> | E<signed integer> (decimal exponent)
 *
 * Go's scanner has two quirks we keep so both sides agree on what is a quantity: a lone sign
 * ("-", "+") reads as zero, and no whitespace is allowed anywhere. Values are exact rationals, as
 * Go's are (inf.Dec): doing the arithmetic in BigInt keeps "0.1" × 1000 equal to 100 instead of
 * 100.00000000000001. Like Go, a non-zero value finer than a nano is rounded up (away from zero)
 * to the next nano, and Value()/MilliValue() round up.
 */
import { KubeletError } from '../errors.js';

/** numerator / denominator, denominator > 0. */
export interface Quantity { readonly num: bigint; readonly den: bigint }

const binarySuffixes: Record<string, bigint> = {
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// Go's scanner, as one expression: sign, number (either side of the point may be empty), suffix
// letters, then an optional signed run of digits (only meaningful after e/E).
const quantityPattern = /^([+-]?)(\d*)(?:(\.)(\d*))?([eEinumkKMGTP]*(?:[+-]?\d*))$/;
const exponentSuffix = /^[eE]([+-]?\d+)$/;
const nano = 1_000_000_000n;

/** Go's ParseQuantity: the quantity `text` stands for, or undefined when it is none. */
export function tryParseQuantity(text: string): Quantity | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', point = '', fraction = '', suffix = ''] = match;
  // A lone sign is Go's zero; otherwise the number needs a digit on one side of the point.
  if (whole === '' && fraction === '' && (point !== '' || suffix !== '' || sign === '')) return undefined;
  let num = BigInt(whole + fraction || '0');
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-') num = -num;

  const binary = binarySuffixes[suffix];
  const decimal = decimalExponents[suffix];
  const exponent = exponentSuffix.exec(suffix);
  if (binary !== undefined) num *= binary;
  else if (decimal !== undefined) [num, den] = scaleByPowerOfTen(num, den, decimal);
  else if (exponent) [num, den] = scaleByPowerOfTen(num, den, Number(exponent[1]));
  else return undefined;
  return roundUpToNano(num, den);
}

/**
 * A quantity as it arrives in a decoded object (a manifest, an API answer): Go's
 * Quantity.UnmarshalJSON, which trims surrounding whitespace before ParseQuantity. Throws
 * KLT_ERR_POD_SPEC_INVALID when it is none.
 */
export function parseQuantity(text: string): Quantity {
  const q = tryParseQuantity(typeof text === 'string' ? text.trim() : text);
  if (q === undefined) throw invalid(text);
  return q;
}

export function isQuantity(text: string): boolean {
  return tryParseQuantity(text) !== undefined;
}

/**
 * The value as a JavaScript number (possibly fractional), or undefined when `text` is not a
 * quantity: for configuration checks (is it zero, is it negative) and node-level amounts that are
 * numbers already.
 */
export function quantityNumber(text: string): number | undefined {
  const q = tryParseQuantity(text);
  return q === undefined ? undefined : Number(q.num) / Number(q.den);
}

function scaleByPowerOfTen(num: bigint, den: bigint, power: number): [bigint, bigint] {
  return power >= 0 ? [num * 10n ** BigInt(power), den] : [num, den * 10n ** BigInt(-power)];
}

/** Go rounds a parsed amount up to nano precision, away from zero, so a tiny request is not zero. */
function roundUpToNano(num: bigint, den: bigint): Quantity {
  if (nano % den === 0n) return { num, den };
  const magnitude = num < 0n ? -num : num;
  const nanos = ceilDiv(magnitude * nano, den);
  return { num: num < 0n ? -nanos : nanos, den: nano };
}

function invalid(text: string): KubeletError {
  return new KubeletError('KLT_ERR_POD_SPEC_INVALID', `quantities must match the regular expression of a Kubernetes quantity: ${JSON.stringify(text)}`);
}

function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den !== 0n && num > 0n ? q + 1n : q;
}

/** Whole units, rounded up (Go's Quantity.Value()). */
export function quantityValue(q: Quantity): bigint {
  return ceilDiv(q.num, q.den);
}

/** Thousandths, rounded up (Go's Quantity.MilliValue()). */
export function quantityMilliValue(q: Quantity): bigint {
  return ceilDiv(q.num * 1000n, q.den);
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

export const zeroQuantity: Quantity = { num: 0n, den: 1n };

/** A resource from a list, parsed; absent → undefined. */
export function resourceQuantity(list: Record<string, string> | undefined, name: string): Quantity | undefined {
  const text = list?.[name];
  return text === undefined ? undefined : parseQuantity(text);
}
