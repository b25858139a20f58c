/**
 * `npm run bench`: every benchmark, printed as figures and, where two implementations or modes
 * run side by side, their ratio from the same run. Results are kept in docs/BENCHMARKS.md.
 */
import { benchApiClient } from './apiclient.js';
import { benchBurstCpu } from './burstcpu.js';
import { benchChurn } from './churn.js';
import { benchClaims } from './claims.js';
import { benchCluster } from './cluster.js';
import { benchCri } from './cri.js';
import { benchExplain } from './explain.js';
import { benchHostile } from './hostile.js';
import { benchHttp } from './http.js';
import { benchIdleAlloc } from './idlealloc.js';
import { benchIdleMem } from './idlemem.js';
import { benchStreaming } from './streaming.js';
import { benchStreamingSplitFrames } from './streaming-split-frames.js';
import { benchJournal } from './journal.js';
import { benchNodeFloor } from './node-floor.js';
import { benchOverload } from './overload.js';
import { benchPodConfigMerge } from './pod-config-merge.js';
import { benchPods } from './pods.js';
import { benchServiceEnv } from './service-env.js';
import { benchSideBySide } from './sidebyside.js';
import { benchShimPss } from './shim-pss.js';
import { benchStartup } from './startup.js';
import { benchStartupCerts } from './startup-certs.js';
import { benchStartupNoise } from './startup-noise.js';
import { benchStartupNoiseCluster } from './startup-noise-cluster.js';
import { benchStatusHistory } from './status-history.js';
import { benchVolumes } from './volumes.js';

const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);

async function main() {
  if (want('journal')) print('journal', await benchJournal());
  if (want('startup')) print('startup', { ...(await benchStartup()), ...(await benchStartupCerts()) });
  if (want('cri')) print('cri', await benchCri());
  if (want('podconfig')) print('podconfig', benchPodConfigMerge());
  if (want('statushistory')) print('statushistory', benchStatusHistory());
  if (want('serviceenv')) print('serviceenv', await benchServiceEnv());
  if (want('pods')) print('pods', await benchPods());
  if (want('http')) print('http', await benchHttp(envOptions()));
  if (want('overload')) print('overload', await benchOverload());
  if (want('streaming')) print('streaming', await benchStreaming());
  if (want('splitframes')) print('splitframes', await benchStreamingSplitFrames());
  if (want('shimpss')) print('shimpss', await benchShimPss());
  if (want('hostile')) print('hostile', await benchHostile());
  // Cluster mode's cost: minutes a run, so only when named.
  if (only.includes('cluster')) print('cluster', await benchCluster());
  // Volumes' cost in cluster mode: minutes a run, so only when named.
  if (only.includes('volumes')) print('volumes', await benchVolumes());
  // What a claim costs a pod's start, the Go kubelet beside kubelet-ts: minutes a turn, so only when named.
  if (only.includes('claims')) print('claims', await benchClaims());
  // Idle memory side by side with a bare Node process and under V8 options: minutes a run, so only when named.
  if (only.includes('idlemem')) print('idlemem', await benchIdleMem());
  // The Go kubelet beside kubelet-ts on the real control plane: minutes a turn, so only when named.
  if (only.includes('sidebyside')) print('sidebyside', await benchSideBySide());
  // Thousands of pods through each kubelet, the Go kubelet beside kubelet-ts: an hour or more, so only when named.
  if (only.includes('churn')) print('churn', await benchChurn());
  // kubelet-ts's CPU in that bench's 30-pod burst, this build against another: minutes, so only when named.
  if (only.includes('burstcpu')) print('burstcpu', await benchBurstCpu());
  // The API client's transport, HTTP/2 against HTTP/1.1, on the real control plane: a minute, so only when named.
  if (only.includes('apiclient')) print('apiclient', await benchApiClient());
  // What an idle node allocates and burns on the real control plane, profiled: minutes a turn, so only when named.
  // How much one build's start-up varies, for `report --compare`'s defaults: a minute, so only when named.
  if (only.includes('startupnoise')) print('startupnoise', await benchStartupNoise());
  // The same on the real control plane, to Node Ready: minutes, so only when named.
  if (only.includes('startupnoisecluster')) print('startupnoisecluster', await benchStartupNoiseCluster());
  if (only.includes('idlealloc')) print('idlealloc', await benchIdleAlloc());
  // An idle kubelet-ts beside the Go kubelet, a Node process holding only a kubelet's connections, and a bare Node: minutes, so only when named.
  if (only.includes('nodefloor')) print('nodefloor', await benchNodeFloor());
  // explain on a full 512 MiB journal, streamed and read whole: minutes (mostly writing the log), so only when named.
  if (only.includes('explain')) print('explain', await benchExplain());
}

/** KUBELET_BENCH_HTTP_CLIENTS / _SECONDS / _PODS: a shorter or smaller http run, e.g. while profiling. */
function envOptions() {
  const n = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const pods = n('KUBELET_BENCH_HTTP_PODS');
  return {
    ...(n('KUBELET_BENCH_HTTP_CLIENTS') ? { clients: n('KUBELET_BENCH_HTTP_CLIENTS') } : {}),
    ...(n('KUBELET_BENCH_HTTP_SECONDS') ? { loadSeconds: n('KUBELET_BENCH_HTTP_SECONDS') } : {}),
    ...(n('KUBELET_BENCH_HTTP_SETTLE') !== undefined ? { settleSeconds: n('KUBELET_BENCH_HTTP_SETTLE') } : {}),
    ...(pods ? { embeddedPods: [pods], containerdPods: [pods] } : {}),
  };
}

function print(name: string, figures: Record<string, number | string>) {
  process.stdout.write(`${name}\n`);
  for (const [k, v] of Object.entries(figures)) process.stdout.write(`  ${k.padEnd(32)} ${v}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
