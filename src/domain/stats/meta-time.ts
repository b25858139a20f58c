/** metav1.Time as JSON: RFC 3339 in UTC with whole seconds (Go drops the fraction when it marshals). */
export function metaTimeFromNs(epochNs: bigint): string {
  const ms = Number(epochNs / 1_000_000n);
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A metav1.Time string back to epoch ms (whole seconds, as the string holds); NaN when it is not a time. */
export function epochMsOfMetaTime(time: string): number {
  return Date.parse(time);
}
