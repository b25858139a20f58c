/**
 * Where two journal records part: the first field, in a fixed order (the record's own fields, then
 * the payload depth first with keys sorted), whose values differ, with both values. Replay names it
 * so a divergence reads `payload.input.containers: [...] → []`, not two whole records to compare by eye.
 */
export interface Difference {
  /** A dotted path: `name`, `payload.delay`, `payload.input.containers.0.image`. */
  field: string;
  expected: unknown;
  actual: unknown;
}

const RECORD_FIELDS = ['actor', 'kind', 'type', 'name', 'source', 'payload'] as const;

/** The first differing field of two records (clocks and seq aside), or null when they agree. */
export function firstRecordDifference(
  expected: Readonly<Record<(typeof RECORD_FIELDS)[number], unknown>>,
  actual: Readonly<Record<(typeof RECORD_FIELDS)[number], unknown>>,
  fields: readonly (typeof RECORD_FIELDS)[number][] = RECORD_FIELDS,
): Difference | null {
  for (const field of fields) {
    const d = firstDifference(expected[field], actual[field], field);
    if (d) return d;
  }
  return null;
}

/** The first differing path under two JSON values, or null when they are equal (key order aside). */
export function firstDifference(expected: unknown, actual: unknown, path = ''): Difference | null {
  if (expected === actual) return null;
  const here = { field: path, expected, actual };
  if (!isObject(expected) || !isObject(actual) || Array.isArray(expected) !== Array.isArray(actual)) return here;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const d = i < expected.length && i < actual.length ? firstDifference(expected[i], actual[i], join(path, String(i))) : { field: join(path, String(i)), expected: expected[i], actual: actual[i] };
      if (d) return d;
    }
    return null;
  }
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])].sort();
  for (const key of keys) {
    const d = key in e && key in a ? firstDifference(e[key], a[key], join(path, key)) : { field: join(path, key), expected: e[key], actual: a[key] };
    if (d) return d;
  }
  return null;
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;
const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
