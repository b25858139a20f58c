/**
 * A strict reader of the Prometheus text format (0.0.4), for tests: it accepts what a correct
 * exposition (Go's expfmt) prints and throws, naming the line, on anything else. No maintained npm
 * package does this: parse-prometheus-text-format is lenient (it keeps duplicate series and
 * samples without a TYPE) and @prometheus-io/lezer-promql parses PromQL, not expositions.
 *
 * Rejected: a line that is neither `# HELP`, `# TYPE`, another `# ` comment nor a sample; blank lines;
 * a missing final newline; a second HELP or TYPE for a family, or either after its samples; a sample
 * before its family's TYPE; a family's samples split by another family's; a duplicate series (same
 * name and label set); a repeated or reserved (`__`) label name; a label value with a raw `"` or
 * backslash, or an escape other than `\\`, `\"` and `\n`; a HELP escape other than `\\` and `\n`; a
 * value that is not a Go float (`0x10`, `1_0`, `Infinity`); a timestamp that is not an integer;
 * histogram buckets without `le`, summary quantiles without `quantile`.
 */

export interface StrictSample {
  /** The sample's own name (`x_bucket` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

export interface StrictFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  /** The help text, unescaped; undefined when the family has no HELP line. */
  help?: string;
  samples: StrictSample[];
}

const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${METRIC_NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_HEAD = new RegExp(`^(${METRIC_NAME})`);
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const GO_FLOAT = /^(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]Inf|NaN)$/;
const TIMESTAMP = /^-?\d+$/;

const SUFFIXES: Record<StrictFamily['type'], readonly string[]> = {
  counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'],
};

class LineError extends Error {}

function unescapeHelp(text: string): string {
  return text.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    throw new LineError(`bad escape \\${c} in HELP`);
  });
}

function parseValue(text: string): number {
  if (!GO_FLOAT.test(text)) throw new LineError(`not a float: ${JSON.stringify(text)}`);
  if (text.endsWith('Inf')) return text.startsWith('-') ? -Infinity : Infinity;
  return text === 'NaN' ? NaN : Number(text);
}

/** Reads `{a="x",b="y"}` from `rest`, returning the labels and what follows the closing brace. */
function parseLabels(rest: string): { labels: Record<string, string>; after: string } {
  const labels: Record<string, string> = {};
  let i = 1; // past '{'
  while (rest[i] !== '}') {
    const eq = rest.indexOf('=', i);
    if (eq < 0) throw new LineError('label without =');
    const name = rest.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new LineError(`bad label name ${JSON.stringify(name)}`);
    if (name.startsWith('__')) throw new LineError(`reserved label name ${name}`);
    if (name in labels) throw new LineError(`label ${name} given twice`);
    if (rest[eq + 1] !== '"') throw new LineError(`label ${name}'s value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (;; j++) {
      const c = rest[j];
      if (c === undefined) throw new LineError(`label ${name}'s value is not closed`);
      if (c === '"') break;
      if (c === '\\') {
        const e = rest[++j];
        if (e === '\\' || e === '"') value += e;
        else if (e === 'n') value += '\n';
        else throw new LineError(`bad escape \\${e ?? ''} in label ${name}`);
      } else value += c;
    }
    labels[name] = value;
    i = j + 1;
    if (rest[i] === ',') i += 1;
    else if (rest[i] !== '}') throw new LineError(`expected , or } after label ${name}`);
  }
  return { labels, after: rest.slice(i + 1) };
}

/** The family a sample name belongs to, among those typed so far. */
function familyOf(name: string, families: ReadonlyMap<string, StrictFamily>): StrictFamily | undefined {
  for (const [base, f] of families) {
    if (SUFFIXES[f.type].some((s) => `${base}${s}` === name)) return f;
  }
  return undefined;
}

function seriesKey(name: string, labels: Record<string, string>): string {
  return `${name}${JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;
}

/** Every family of an exposition, in order; throws `line N: …` at the first thing out of format. */
export function parseStrictExposition(text: string): StrictFamily[] {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, StrictFamily>();
  const helps = new Map<string, string>();
  const series = new Set<string>();
  const closed = new Set<string>();
  let current: StrictFamily | undefined;
  const lines = text === '' ? [] : text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    try {
      readLine(line);
    } catch (err) {
      if (err instanceof LineError) throw new Error(`line ${index + 1}: ${err.message}: ${line}`);
      throw err;
    }
  });
  for (const [name, help] of helps) {
    const f = families.get(name);
    if (f) f.help = help;
  }
  return [...families.values()];

  function enter(name: string): void {
    if (current && current.name !== name) closed.add(current.name);
    if (closed.has(name)) throw new LineError(`family ${name} continues after another family`);
  }

  function readLine(line: string): void {
    if (line === '') throw new LineError('blank line');
    if (line.startsWith('#')) {
      if (line.startsWith('# HELP ')) {
        const m = HELP_LINE.exec(line);
        if (!m) throw new LineError('malformed HELP');
        const name = m[1]!;
        if (helps.has(name)) throw new LineError(`second HELP for ${name}`);
        if (families.get(name)?.samples.length) throw new LineError(`HELP for ${name} after its samples`);
        enter(name);
        helps.set(name, unescapeHelp(m[2]!));
        return;
      }
      if (line.startsWith('# TYPE ')) {
        const m = TYPE_LINE.exec(line);
        if (!m) throw new LineError('malformed TYPE');
        const name = m[1]!;
        if (families.has(name)) throw new LineError(`second TYPE for ${name}`);
        enter(name);
        current = { name, type: m[2] as StrictFamily['type'], samples: [] };
        families.set(name, current);
        return;
      }
      if (line.startsWith('# ')) return; // a plain comment
      throw new LineError('malformed comment');
    }
    const head = SAMPLE_HEAD.exec(line);
    if (!head) throw new LineError('not a sample');
    const name = head[1]!;
    const family = familyOf(name, families);
    if (!family) throw new LineError(`sample ${name} before its family's TYPE`);
    enter(family.name);
    current = family;
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, after: rest } = parseLabels(rest));
    const fields = rest.split(' ');
    if (fields[0] !== '' || fields.length < 2 || fields.length > 3) throw new LineError('expected one space, a value and an optional timestamp');
    const value = parseValue(fields[1]!);
    const ts = fields[2];
    if (ts !== undefined && !TIMESTAMP.test(ts)) throw new LineError(`not a timestamp: ${JSON.stringify(ts)}`);
    if (name.endsWith('_bucket') && family.type === 'histogram' && labels.le === undefined) throw new LineError('bucket without le');
    if (family.type === 'summary' && name === family.name && labels.quantile === undefined) throw new LineError('quantile without quantile label');
    const key = seriesKey(name, labels);
    if (series.has(key)) throw new LineError(`duplicate series ${name}`);
    series.add(key);
    family.samples.push({ name, labels, value, ...(ts !== undefined ? { timestampMs: Number(ts) } : {}) });
  }
}

/** The families by name; throws as parseStrictExposition does. */
export function strictFamilies(text: string): Map<string, StrictFamily> {
  return new Map(parseStrictExposition(text).map((f) => [f.name, f]));
}

/** Each family's type and help by name: what a test compares with the Go kubelet's list. */
export function familySignatures(families: ReadonlyMap<string, StrictFamily>): Record<string, [string, string | undefined]> {
  return Object.fromEntries([...families].map(([name, f]) => [name, [f.type, f.help]]));
}
