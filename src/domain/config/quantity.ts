/**
 * Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity) as the kubelet's
 * configuration carries them: strings such as `100Mi`, `1.5Gi`, `200m`, `1e3`, `10`.
 * We keep them as strings (the configuration prints them back unchanged) and only check the
 * syntax and convert to a number when a value is compared.
 */

// <sign><digits>[.<digits>]<suffix>, suffix one of the binary SI, decimal SI or decimal exponent forms.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const SUFFIX_FACTOR: Record<string, number> = {
  '': 1,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

export function isQuantity(text: string): boolean {
  return QUANTITY.test(text);
}

/** The quantity's value as a (possibly fractional) number, or undefined if it is not a quantity. */
export function quantityValue(text: string): number | undefined {
  const m = QUANTITY.exec(text);
  if (m === null) return undefined;
  const sign = m[1] === '-' ? -1 : 1;
  const mantissa = Number(m[2]);
  const suffix = m[3] ?? '';
  const factor = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX_FACTOR[suffix];
  return factor === undefined ? undefined : sign * mantissa * factor;
}

/** A percentage as eviction thresholds allow it (`10%`, `7.5%`); returns the number or undefined. */
export function percentageValue(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(text);
  return m === null ? undefined : Number(m[1]);
}
