/**
 * The JSON body of /stats/summary. Go writes uint64 counters as plain numbers with every digit;
 * JSON.stringify cannot write a bigint, and a Number loses digits beyond 2^53 (CPU nanoseconds of a
 * long-lived container reach that), so bigints are written as their decimal digits here.
 */
import type { Summary } from './summary-types.js';

/** A string no field of a summary can contain, marking where a bigint's digits go. */
const MARK = '\u0000u64:';

export function summaryJson(summary: Summary): string {
  const text = JSON.stringify(summary, (_key, value: unknown) => (typeof value === 'bigint' ? `${MARK}${value.toString()}` : value));
  // JSON.stringify escapes U+0000 as \u0000, so only our marks match.
  return text.replace(/"\\u0000u64:(-?\d+)"/g, '$1');
}
