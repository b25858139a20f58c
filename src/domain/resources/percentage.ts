/** A percentage as eviction thresholds allow it (`10%`, `7.5%`); returns the number or undefined. */
export function percentageValue(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(text);
  return m === null ? undefined : Number(m[1]);
}
