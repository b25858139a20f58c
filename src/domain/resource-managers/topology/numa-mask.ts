/**
 * NUMA affinities as sorted id lists, with the comparisons of Go's topologymanager/bitmask: a mask is
 * "narrower" than another when it has fewer bits set, and at equal counts when its value as a number
 * is smaller (more lower-numbered nodes).
 */

/** Go's bitmask holds 64 bits: NUMA ids from 0 to 63. */
export const MAX_NUMA_ID = 63;

/** The sorted, de-duplicated ids. */
export function numaMask(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

function maskValue(mask: readonly number[]): bigint {
  return mask.reduce((value, id) => value | (1n << BigInt(id)), 0n);
}

/** Go's bitmask.And: the ids in every mask. */
export function andMasks(first: readonly number[], ...others: (readonly number[])[]): number[] {
  return first.filter((id) => others.every((mask) => mask.includes(id)));
}

export function sameMask(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** Go's IsLessThan: the masks compared as numbers. */
export function isMaskLessThan(a: readonly number[], b: readonly number[]): boolean {
  return maskValue(a) < maskValue(b);
}

/** Go's IsNarrowerThan. */
export function isMaskNarrowerThan(a: readonly number[], b: readonly number[]): boolean {
  if (a.length === b.length) return isMaskLessThan(a, b);
  return a.length < b.length;
}

/** Go's IterateBitMasks: every non-empty subset of `ids`, by size, then in combination order. */
export function everySubMask(ids: readonly number[]): number[][] {
  const out: number[][] = [];
  const pick = (from: readonly number[], accum: number[], size: number): void => {
    if (accum.length === size) {
      out.push(numaMask(accum));
      return;
    }
    from.forEach((id, i) => pick(from.slice(i + 1), [...accum, id], size));
  };
  for (let size = 1; size <= ids.length; size++) pick(ids, [], size);
  return out;
}

/** Whether every id of `inner` is in `outer` (the memory manager's isHintInGroup). */
export function isSubMask(inner: readonly number[], outer: readonly number[]): boolean {
  return inner.every((id) => outer.includes(id));
}
