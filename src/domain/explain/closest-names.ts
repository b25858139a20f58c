/** The known names nearest to a mistyped one, for an error that helps (edit distance, as a shell's "did you mean"). */

const SHOWN = 3;

/** Up to three of `names`, nearest to `asked` first; `asked` is compared with `namespace/name` and with the bare name. */
export function closestNames(asked: string, names: readonly string[]): string[] {
  const scored = names.map((name) => ({ name, d: Math.min(editDistance(asked, name), editDistance(asked, name.slice(name.indexOf('/') + 1))) }));
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return scored.slice(0, SHOWN).map((s) => s.name);
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment): `wbe` is one from `web`. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
