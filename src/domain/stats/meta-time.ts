/** metav1.Time as JSON: RFC 3339 in UTC with whole seconds (Go drops the fraction when it marshals). */
export function metaTimeFromNs(epochNs: bigint): string {
  const ms = Number(epochNs / 1_000_000n);
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
