/**
 * What the churn bench concludes from its samples: how fast each figure grows with the pods a node
 * has run, over the last two thirds of the run (the first third is warm-up: compiled code, pools,
 * caches filling), as a least-squares slope per 1,000 pods run.
 */

export interface ChurnSample {
  /** Seconds since the kubelet started. */
  t: number;
  /** Pods the node has run to their end so far. */
  podsRun: number;
  figures: Record<string, number>;
}

/** The least-squares slope of y over x; 0 with fewer than two distinct x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/** Each figure's growth per 1,000 pods run over the samples after the first third of the pods. */
export function slopesPerThousandPods(samples: readonly ChurnSample[]): Record<string, number> {
  const last = samples.at(-1)?.podsRun ?? 0;
  const tail = samples.filter((s) => s.podsRun >= last / 3);
  const names = new Set(tail.flatMap((s) => Object.keys(s.figures)));
  const out: Record<string, number> = {};
  for (const name of names) {
    const points = tail.filter((s) => s.figures[name] !== undefined).map((s): [number, number] => [s.podsRun, s.figures[name]!]);
    out[name] = slope(points) * 1000;
  }
  return out;
}
