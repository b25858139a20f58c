/**
 * The e2e framework's JUnit report (ginkgo v2's `junit_01.xml`) read back as one result per spec.
 * Only the shapes that report has are read: `<testcase name status time>` with an optional
 * `<failure message>`, `<error message>` or `<skipped message>` inside. A spec the focus and skip left
 * out is reported `skipped` with the bare message "skipped"; one that skipped itself while running
 * says why after it ("skipped - …"), so only the first kind counts as not selected.
 */

export interface SpecResult {
  /** The spec's full text as ginkgo's --focus matches it ("[sig-node] Pods should …"). */
  name: string;
  /** ginkgo's state: passed, failed, skipped, timedout, interrupted, aborted, panicked, pending. */
  status: string;
  seconds: number;
  /** The first non-empty line of the failure (or of the reason a spec skipped itself), without the framework's time stamp. */
  failure?: string;
  /** For a spec that did not pass: the test namespaces its report names (`pods-1234`), where its pods were. */
  namespaces?: string[];
  /** For a spec that did not pass: the pods its output waits on or names (`pod "liveness-0a1b"`). */
  pods?: string[];
}

export interface JunitSpecs {
  /** The specs the focus and skip selected, in the report's order. */
  specs: SpecResult[];
  /** Specs in the binary that were not selected. */
  notSelected: number;
  /** Suite-level nodes ([SynchronizedBeforeSuite], [ReportAfterSuite] …) that did not pass. */
  suiteFailures: SpecResult[];
}

/** Enough of a long failure for a table cell: what it says after an object it dumps. */
const FAILURE_LINE_MAX = 400;

/**
 * The failure's first non-empty line; when that line opens an object the framework dumps (a pod as
 * JSON, ending `{`), what the message says after the dump's last closing line, where the reason is.
 */
function failureLine(message: string): string | undefined {
  const lines = message.split('\n').map((l) => l.trim().replace(FRAMEWORK_STAMP, '')).filter((l) => l !== '' && !/^In \[\w+\] at: /.test(l));
  const first = lines[0]?.replace(/^\[FAILED\] /, '');
  if (first === undefined || !first.endsWith('{')) return first;
  const closing = lines.findLastIndex((l) => l === '}');
  const after = closing < 0 ? '' : lines.slice(closing + 1).join(' ');
  const line = after === '' ? first : `${first}…} ${after}`;
  return line.length > FAILURE_LINE_MAX ? `${line.slice(0, FAILURE_LINE_MAX - 1)}…` : line;
}

/** The time the e2e framework puts before its failure messages ("Nov 25 23:45:34.576: "): left out, so runs compare. */
const FRAMEWORK_STAMP = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d\.\d+: /;
const SUITE_NODE = /^\[(Synchronized)?(Before|After|ReportBefore|ReportAfter)Suite\]/;

export function parseJunit(xml: string): JunitSpecs {
  const out: JunitSpecs = { specs: [], notSelected: 0, suiteFailures: [] };
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attrs = attributes(m[1]!);
    const body = m[2] ?? '';
    const name = (attrs.name ?? '').replace(/^\[It\] /, '');
    const detail = /<(failure|error|skipped)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/.exec(body);
    const status = attrs.status ?? (detail ? (detail[1] === 'skipped' ? 'skipped' : 'failed') : 'passed');
    // A failure of ginkgo v2.2x has an empty message attribute and the whole text as the body.
    const message = detail ? (attributes(detail[2]!).message?.trim() || decode(detail[3] ?? '')) : '';
    if (status === 'skipped' && message.trim() === 'skipped') {
      out.notSelected++;
      continue;
    }
    const firstLine = failureLine(message);
    const failed = status !== 'passed' && status !== 'skipped';
    const namespaces = failed ? testNamespaces(decode(body)) : [];
    const pods = failed ? podsNamed(decode(body)) : [];
    const result: SpecResult = {
      name, status, seconds: Number(attrs.time ?? 0), ...(firstLine ? { failure: firstLine } : {}),
      ...(namespaces.length > 0 ? { namespaces } : {}), ...(pods.length > 0 ? { pods } : {}),
    };
    if (!SUITE_NODE.test(name)) out.specs.push(result);
    else if (status !== 'passed') out.suiteFailures.push(result);
  }
  return out;
}

/**
 * The e2e framework names each spec's namespace `<basename>-<number>` and says it in its output
 * (`Destroying namespace "pods-1234" for this suite.`, `… in namespace "pods-1234"`), which the report keeps.
 */
export function testNamespaces(text: string): string[] {
  return [...new Set([...text.matchAll(/namespace:? "?([a-z0-9][-a-z0-9]*-\d+)\b/g)].map((m) => m[1]!))];
}

/** The pods a spec's output names as the framework does: `for pod "NAME" in namespace …`, `PodName:NAME`. */
export function podsNamed(text: string): string[] {
  return [...new Set([...text.matchAll(/\bpod "([a-z0-9][-.a-z0-9]*)"|PodName:([a-z0-9][-.a-z0-9]*)/g)].map((m) => (m[1] ?? m[2])!))];
}

function attributes(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1]!, decode(a[2]!)]));
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML character and entity references; an unknown entity is left as it is. */
export function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return NAMED[ref] ?? whole;
  });
}
