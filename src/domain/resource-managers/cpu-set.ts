/**
 * CPU sets as Linux and Go's cpuset package write them: `0-2,5,7-8`, ranges of consecutive ids.
 */

/** Sorted, without duplicates. */
export function sortedCpus(ids: Iterable<number>): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** cpuset.String: ranges of consecutive ids, comma separated; "" for none. */
export function formatCpuSet(ids: Iterable<number>): string {
  const sorted = sortedCpus(ids);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** cpuset.Parse: the ids of `0-3,5` (sorted); an Error naming the bad range otherwise. "" is none. */
export function parseCpuSet(text: string): number[] {
  if (text.trim() === '') return [];
  const ids: number[] = [];
  for (const range of text.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
    if (m === null) throw new Error(`invalid range ${JSON.stringify(range)}`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new Error(`invalid range ${JSON.stringify(range)} (${from} > ${to})`);
    for (let id = from; id <= to; id++) ids.push(id);
  }
  return sortedCpus(ids);
}

/** The ids of `a` not in `b`. */
export function cpusWithout(a: readonly number[], b: Iterable<number>): number[] {
  const drop = new Set(b);
  return a.filter((id) => !drop.has(id));
}
