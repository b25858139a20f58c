/**
 * The start-up noise bench (startup-noise.ts) in cluster mode: the real binary joins the real
 * control plane (../shared/lab/kube, v1.26) on the embedded runtime, stopped once its Node is
 * Ready (the journal's `nodeReady` mark, often before the last phases end) and start-up reached
 * `running`, its Node deleted before the next run so that each run
 * registers afresh as a new node does. `npm run bench -- startupnoisecluster`.
 * The kubelet server's certificate is made by a first run, not measured, and kept for the others, as
 * a CI machine keeps its cert dir: a new self-signed pair costs startKubelet.servers an RSA key
 * search of 0.5–2 s, noise that would hide anything else in that phase.
 * KTS_NOISE_CLUSTER_CERTS=fresh gives each run an empty cert dir instead.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJournal } from '../src/adapters/journal-file/reader.js';
import type { JournalRecord } from '../src/domain/journal/record.js';
import { startupReport } from '../src/domain/journal/report.js';
import { readyMarks } from '../src/domain/journal/startup-ready.js';
import { spawnClusterKubelet, stopClusterKubelet } from '../test/support/cluster-kubelet.js';
import { controlPlaneMissing, kubeLabScripts, purgeKubeLab, runScript, scriptEnv } from '../test/support/kube-lab-scripts.js';
import { labApi, upOnce, type KubeLab } from '../test/support/kube-lab-up.js';
import { freePort } from './free-port.js';
import { startupNoise } from './startup-noise.js';

const NODE = 'noise-node';
/** A bound for a loaded 2-core machine, not a figure. */
const READY_DEADLINE_MS = 60_000;

export async function benchStartupNoiseCluster(): Promise<Record<string, number | string>> {
  const scripts = kubeLabScripts();
  const unavailable = controlPlaneMissing(scripts);
  if (unavailable) return { skipped: unavailable };
  const labDir = mkdtempSync(join(tmpdir(), 'kts-noise-lab-'));
  try {
    const lab = await upOnce(labDir, scripts);
    const kubeconfig = join(labDir, 'node.kubeconfig');
    writeFileSync(kubeconfig, await runScript('bash', [join(lab.scripts, 'node-kubeconfig.sh'), NODE], scriptEnv(lab.dir), 30_000));
    const kept = process.env.KTS_NOISE_CLUSTER_CERTS !== 'fresh';
    const warmUp = join(labDir, 'warm-up');
    if (kept) await recordClusterStartup(lab, kubeconfig, warmUp);
    return {
      certDir: kept ? 'kept' : 'fresh',
      ...(await startupNoise('nodeReady', (dir) => {
        if (kept) cpSync(join(warmUp, 'pki'), join(dir, 'pki'), { recursive: true });
        return recordClusterStartup(lab, kubeconfig, dir);
      })),
    };
  } finally {
    await purgeKubeLab(labDir, scripts).catch((err: unknown) => process.stderr.write(`startupnoisecluster: stopping the control plane: ${String(err)}\n`));
    rmSync(labDir, { recursive: true, force: true });
  }
}

function readyAndRunning(records: readonly JournalRecord[]): boolean {
  return readyMarks(records).nodeReady !== undefined && startupReport(records).runningAtMs !== null;
}

async function recordClusterStartup(lab: KubeLab, kubeconfig: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'root', 'events', 'latest.jsonl');
  const kubelet = spawnClusterKubelet({ dir, endpoint: 'embedded', node: NODE, port: await freePort(), clientCa: lab.ca, kubeconfigArgs: [`--kubeconfig=${kubeconfig}`] });
  try {
    const deadline = Date.now() + READY_DEADLINE_MS;
    while (!(existsSync(log) && readyAndRunning(readJournal(log).records))) {
      if (kubelet.child.exitCode !== null || Date.now() > deadline) throw new Error(`the kubelet's Node never became Ready:\n${kubelet.stderr().slice(-2000)}`);
      // The journal is a file: read again every 200 ms until it shows both marks.
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await stopClusterKubelet(kubelet);
    await labApi(lab, 'DELETE', `/api/v1/nodes/${NODE}`);
  }
  return log;
}
