/**
 * Reading /metrics back: the Prometheus text format (0.0.4) parsed strictly enough to catch a broken
 * exposition (every line a comment or `name{labels} value`, every sample under a `# TYPE` of its
 * family), and the histograms in it turned into windows (after − before) and quantiles, the way
 * Prometheus's histogram_quantile reads them.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const v = Number(text);
  if (text === '' || Number.isNaN(v)) throw new Error(`not a number: ${text}`);
  return v;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`malformed labels: {${text}}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** Every sample of an exposition; throws naming the first line that is not Prometheus text. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  const typed = new Map<string, string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const t = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (t) typed.set(t[1]!, t[2]!);
      else if (!/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) throw new Error(`line ${i + 1}: malformed comment: ${line}`);
      return;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a sample: ${line}`);
    const name = m[1]!;
    const family = typed.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!typed.has(family)) throw new Error(`line ${i + 1}: ${name} has no # TYPE`);
    try {
      samples.push({ name, labels: m[2] ? parseLabels(m[2]) : {}, value: parseValue(m[3]!) });
    } catch (err) {
      throw new Error(`line ${i + 1}: ${(err as Error).message}`);
    }
  });
  return samples;
}

/** A cumulative histogram as read back: upper bounds in seconds (the last +Inf) with their counts. */
export interface ReadHistogram {
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
}

/** The unlabelled histogram `name` (besides `le`) from the samples; throws when it is missing. */
export function histogramFrom(samples: readonly Sample[], name: string): ReadHistogram {
  const buckets = samples
    .filter((s) => s.name === `${name}_bucket`)
    .map((s) => ({ le: parseValue(s.labels.le ?? ''), count: s.value }))
    .sort((a, b) => a.le - b.le);
  const count = samples.find((s) => s.name === `${name}_count`)?.value;
  const sum = samples.find((s) => s.name === `${name}_sum`)?.value;
  if (buckets.length === 0 || count === undefined || sum === undefined) throw new Error(`no histogram ${name} in the exposition`);
  return { buckets, count, sum };
}

/** The observations made between two readings of one histogram. */
export function histogramDelta(after: ReadHistogram, before: ReadHistogram): ReadHistogram {
  return {
    buckets: after.buckets.map((b, i) => ({ le: b.le, count: b.count - (before.buckets[i]?.count ?? 0) })),
    count: after.count - before.count,
    sum: after.sum - before.sum,
  };
}

/**
 * The q-quantile (0 < q ≤ 1) as Prometheus's histogram_quantile estimates it: linear within the
 * bucket that holds it (from 0 for the first); the highest finite bound when it falls in +Inf;
 * NaN without observations.
 */
export function histogramQuantile(q: number, h: ReadHistogram): number {
  if (h.count <= 0) return NaN;
  const rank = q * h.count;
  let lowerLe = 0;
  let lowerCount = 0;
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return lowerLe;
      return lowerLe + ((b.le - lowerLe) * (rank - lowerCount)) / Math.max(b.count - lowerCount, 1e-12);
    }
    lowerLe = b.le;
    lowerCount = b.count;
  }
  return lowerLe;
}

/** Observations above `bound` (seconds, one of the bucket bounds). */
export function countAbove(h: ReadHistogram, bound: number): number {
  const b = h.buckets.find((x) => x.le === bound);
  if (!b) throw new Error(`${bound} is not a bucket bound`);
  return h.count - b.count;
}

/** The upper bound of the highest bucket that gained observations: the window's maximum, to a bucket. */
export function highestBucket(h: ReadHistogram): number {
  let prev = 0;
  let top = 0;
  for (const b of h.buckets) {
    if (b.count > prev) top = b.le;
    prev = b.count;
  }
  return top;
}

/** The value of an unlabelled gauge or counter; throws when it is missing. */
export function scalar(samples: readonly Sample[], name: string): number {
  const s = samples.find((x) => x.name === name && Object.keys(x.labels).length === 0);
  if (!s) throw new Error(`no sample ${name} in the exposition`);
  return s.value;
}
