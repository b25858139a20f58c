/**
 * The kubelet server overloaded, to show that a burst of requests is answered or refused cleanly
 * and does not starve the kubelet's own CRI calls: the real binary with 110 static pods running
 * (embedded runtime; containerd too when KUBELET_IT_CRI names one), then `concurrency` requests sent
 * at once, each on its own new TLS connection, first all on /stats/summary, then all on /pods.
 *
 * Target, per path: every request answered 200 or the documented 503 with Retry-After (429 is
 * counted with it), no connection error or reset, none slower than 5 s; and no CRI Status call
 * failed meanwhile (kubelet_runtime_operations_errors_total{operation_type="status"} from the
 * daemon's /metrics, read before and after): PASS or FAIL.
 */
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { freePort } from './free-port.js';
import { httpsText } from './http-load.js';
import { parseSamples, type Sample } from './prometheus-samples.js';
import { podRuns, sleep, withStaticPods, type Fleet, type PodRun } from './static-pod-fleet.js';
import { percentile, round } from './stats.js';

export interface OverloadBenchOptions {
  concurrency?: number;
  paths?: string[];
  settleSeconds?: number;
  startTimeoutSeconds?: number;
  embeddedPods?: number[];
  containerdPods?: number[];
}

export const OVERLOAD_LATENCY_TARGET_MS = 5000;
/** A request still unanswered by then counts as an error (and is far past the target). */
const CLIENT_TIMEOUT_MS = 60_000;

interface Outcome {
  status: number | null;
  retryAfter: boolean;
  error: string | null;
  ms: number;
}

function once(port: number, path: string): Promise<Outcome> {
  const t0 = performance.now();
  return new Promise((done) => {
    const finish = (o: Omit<Outcome, 'ms'>) => done({ ...o, ms: performance.now() - t0 });
    const req = request({ host: '127.0.0.1', port, path, agent: false, rejectUnauthorized: false, timeout: CLIENT_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => finish({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] !== undefined, error: null }));
      res.on('error', (err) => finish({ status: null, retryAfter: false, error: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, retryAfter: false, error: err.code ?? err.message }));
    req.end();
  });
}

function statusErrors(samples: readonly Sample[]): number {
  return samples.filter((s) => s.name === 'kubelet_runtime_operations_errors_total' && s.labels.operation_type === 'status').reduce((a, s) => a + s.value, 0);
}

function statusCalls(samples: readonly Sample[]): number {
  return samples.filter((s) => s.name === 'kubelet_runtime_operations_total' && s.labels.operation_type === 'status').reduce((a, s) => a + s.value, 0);
}

async function metrics(port: number): Promise<Sample[]> {
  const res = await httpsText(port, '/metrics');
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseSamples(res.body);
}

async function burst(port: number, path: string, n: number, p: string): Promise<{ figures: Record<string, number>; pass: boolean }> {
  const outcomes = await Promise.all(Array.from({ length: n }, () => once(port, path)));
  const ok = outcomes.filter((o) => o.status === 200).length;
  const refused = outcomes.filter((o) => (o.status === 503 || o.status === 429) && o.retryAfter).length;
  const errors = outcomes.filter((o) => o.error !== null);
  const other = outcomes.length - ok - refused - errors.length;
  const ms = outcomes.map((o) => o.ms);
  const maxMs = Math.max(...ms);
  if (errors.length > 0 || other > 0) {
    const kinds = new Map<string, number>();
    for (const o of outcomes) if (o.status !== 200 && !((o.status === 503 || o.status === 429) && o.retryAfter)) kinds.set(o.error ?? `status ${o.status}`, (kinds.get(o.error ?? `status ${o.status}`) ?? 0) + 1);
    process.stdout.write(`overload ${p}: not answered as documented: ${[...kinds].map(([k, v]) => `${v} × ${k}`).join(', ')}\n`);
  }
  return {
    figures: {
      [`${p}requests`]: n, [`${p}ok200`]: ok, [`${p}refused503or429`]: refused, [`${p}otherStatus`]: other, [`${p}connectionErrors`]: errors.length,
      [`${p}p50Ms`]: round(percentile(ms, 50), 1), [`${p}p99Ms`]: round(percentile(ms, 99), 1), [`${p}maxMs`]: round(maxMs, 1),
    },
    pass: errors.length === 0 && other === 0 && maxMs <= OVERLOAD_LATENCY_TARGET_MS,
  };
}

async function underOverload({ run }: Fleet, port: number, o: Required<OverloadBenchOptions>): Promise<Record<string, number>> {
  await sleep(o.settleSeconds * 1000);
  const p = `${run.label}.`;
  const before = await metrics(port);
  const out: Record<string, number> = { [`${p}concurrency`]: o.concurrency };
  let pass = true;
  for (const path of o.paths) {
    const r = await burst(port, path, o.concurrency, `${p}${path.replace(/\W/g, '')}.`);
    Object.assign(out, r.figures);
    pass &&= r.pass;
  }
  // Let the runtime-health loop run at least once after the bursts, so a starved Status shows.
  await sleep(6000);
  const after = await metrics(port);
  const failedStatus = statusErrors(after) - statusErrors(before);
  Object.assign(out, { [`${p}criStatusCalls`]: statusCalls(after) - statusCalls(before), [`${p}criStatusFailed`]: failedStatus });
  pass &&= failedStatus === 0;
  out[`${p}pass`] = pass ? 1 : 0;
  process.stdout.write(`overload ${run.label}: all answered 200 or 503/429 with Retry-After, none over ${OVERLOAD_LATENCY_TARGET_MS} ms, no failed CRI Status: ${pass ? 'PASS' : 'FAIL'}\n`);
  return out;
}

async function benchOneRun(run: PodRun, o: Required<OverloadBenchOptions>): Promise<Record<string, number>> {
  const port = await freePort();
  const { result, podsRemoved } = await withStaticPods(run, { startTimeoutSeconds: o.startTimeoutSeconds, daemon: { serverPort: port } }, (fleet) => underOverload(fleet, port, o));
  return { ...result, [`${run.label}.podsRemoved`]: podsRemoved };
}

export async function benchOverload(options: OverloadBenchOptions = {}): Promise<Record<string, number>> {
  const o: Required<OverloadBenchOptions> = {
    concurrency: 1000, paths: ['/stats/summary', '/pods'], settleSeconds: 10, startTimeoutSeconds: 300, embeddedPods: [110], containerdPods: [110], ...options,
  };
  const out: Record<string, number> = {};
  for (const run of podRuns('overload', o.embeddedPods, o.containerdPods)) Object.assign(out, await benchOneRun(run, o));
  return out;
}
