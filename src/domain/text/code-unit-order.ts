/**
 * Strings in UTF-16 code-unit order, as Go compares strings (bytes: the same order for ASCII), so
 * every list the kubelet sorts is in one order, whoever sorts it. Not localeCompare: its first call
 * maps ICU's collation data into the process for the rest of its life.
 */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Entries of an object (or pairs) in code-unit order of their keys. */
export const byFirstCodeUnits = <T>([a]: readonly [string, T], [b]: readonly [string, T]): number => byCodeUnits(a, b);
