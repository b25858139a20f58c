/**
 * Kubernetes resource quantities ("100m", "0.5", "128Mi", "1e3") as exact rationals.
 *
 * Go's resource.Quantity is exact too (inf.Dec), and its Value()/MilliValue() round up; doing the
 * arithmetic in BigInt keeps "0.1" × 1000 equal to 100 instead of 100.00000000000001.
 */
import { KubeletError } from '../errors.js';

/** numerator / denominator, denominator > 0. */
export interface Quantity { readonly num: bigint; readonly den: bigint }

const binarySuffixes: Record<string, bigint> = {
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const quantityPattern = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

export function parseQuantity(text: string): Quantity {
  const match = quantityPattern.exec(text.trim());
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match ?? [];
  if (!match || (whole === '' && fraction === '')) throw invalid(text);
  let num = BigInt(whole + fraction || '0');
  let den = 10n ** BigInt(fraction.length);
  if (sign === '-') num = -num;

  const binary = binarySuffixes[suffix];
  const decimal = decimalExponents[suffix];
  const exponent = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (binary !== undefined) num *= binary;
  else if (decimal !== undefined) [num, den] = scaleByPowerOfTen(num, den, decimal);
  else if (exponent) [num, den] = scaleByPowerOfTen(num, den, Number(exponent[1]));
  else throw invalid(text);
  return { num, den };
}

function scaleByPowerOfTen(num: bigint, den: bigint, power: number): [bigint, bigint] {
  return power >= 0 ? [num * 10n ** BigInt(power), den] : [num, den * 10n ** BigInt(-power)];
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
