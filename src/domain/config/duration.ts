/**
 * Go's time.Duration text format, which KubeletConfiguration uses for every duration field
 * (metav1.Duration marshals with Duration.String and unmarshals with time.ParseDuration).
 * We keep durations in milliseconds (fractions allowed, so `1.5ms` or `500us` survive); formatting
 * goes through whole nanoseconds, as Go does, so a parse/format round trip gives Go's spelling.
 */

const NS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  'µs': 1e3, // U+00B5 micro sign
  'μs': 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's largest duration is int64 nanoseconds: about 292 years. */
const MAX_NS = 9223372036854775807;

export class DurationSyntaxError extends Error {
  override readonly name = 'DurationSyntaxError';
}

/**
 * Parses a Go duration ("1m30s", "100ms", "-1.5h", "0") into milliseconds.
 * Throws DurationSyntaxError with Go's wording (`time: invalid duration "x"`) when it is not one.
 */
export function parseGoDuration(text: string): number {
  const invalid = (): DurationSyntaxError => new DurationSyntaxError(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let totalNs = 0;
  while (rest !== '') {
    // A number: digits, optionally a fraction; at least one digit overall.
    const num = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = num?.[1] ?? '';
    const frac = num?.[2] ?? '';
    if (num === null || (whole === '' && frac === '')) throw invalid();
    rest = rest.slice(num[0].length);
    const unit = /^[^\d.]+/.exec(rest)?.[0];
    if (unit === undefined) throw new DurationSyntaxError(`time: missing unit in duration ${JSON.stringify(text)}`);
    const scale = NS_PER_UNIT[unit];
    if (scale === undefined) {
      throw new DurationSyntaxError(`time: unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    }
    rest = rest.slice(unit.length);
    totalNs += Number(whole === '' ? '0' : whole) * scale + (frac === '' ? 0 : Number(`0.${frac}`) * scale);
    if (totalNs > MAX_NS) throw invalid();
  }
  return (sign * Math.round(totalNs)) / 1e6;
}

/** Formats milliseconds the way Go's Duration.String does: `1h0m0s`, `1m0s`, `10s`, `100ms`, `0s`. */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  ns = Math.abs(ns);
  if (ns < 1e9) {
    // Below a second Go picks the largest unit that keeps a non-zero integer part.
    const [unit, scale] = ns < 1e3 ? ['ns', 1] : ns < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${fixed(ns, scale as number)}${unit as string}`;
  }
  const hours = Math.floor(ns / 3600e9);
  ns -= hours * 3600e9;
  const minutes = Math.floor(ns / 60e9);
  ns -= minutes * 60e9;
  const seconds = fixed(ns, 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** value/scale with up to 9 fraction digits, trailing zeros (and a bare point) removed. */
function fixed(value: number, scale: number): string {
  const whole = Math.floor(value / scale);
  const remainder = value - whole * scale;
  if (remainder === 0) return String(whole);
  const digits = String(Math.round(remainder)).padStart(String(scale).length - 1, '0').replace(/0+$/, '');
  return `${whole}.${digits}`;
}

/** True when the text parses as a Go duration. */
export function isGoDuration(text: string): boolean {
  try {
    parseGoDuration(text);
    return true;
  } catch {
    return false;
  }
}

/** Normalises a Go duration's spelling (`60s` → `1m0s`); throws DurationSyntaxError if invalid. */
export function normalizeGoDuration(text: string): string {
  return formatGoDuration(parseGoDuration(text));
}
