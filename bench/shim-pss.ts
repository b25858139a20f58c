/**
 * `npm run bench -- shimpss`: what the embedded runtime's per-container monitoring costs in memory.
 * N idle sleeper containers (30 by default, KUBELET_BENCH_SHIM_CONTAINERS), each in a pod of its own,
 * started through a runtime process of its own (`kubelet-ts runtime serve`); after they settle, the
 * processes whose command line names the runtime's shim directory (the shims, whatever their number)
 * are summed: PSS from smaps_rollup (shared pages divided among their users, as smem reports them),
 * RSS beside it; the runtime's own PSS apart, and summed with the shims'. The containers' own
 * processes are not counted.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { sandboxConfig, sleeperConfig, tearDownRun } from './cri-fixtures.js';
import { startEmbeddedRuntimeProcess } from './embedded-runtime-process.js';
import { pidsWithCommandLine, pssMiB, rssMiB } from './proc-usage.js';

export interface ShimPssOptions {
  containers?: number;
  /** How long the idle containers are left before the shims are measured. */
  settleSeconds?: number;
}

const IMAGE = 'kubelet-ts.local/busybox:1.0';
const round = (n: number, digits: number) => Number(n.toFixed(digits));

export async function benchShimPss(options: ShimPssOptions = {}): Promise<Record<string, number>> {
  const o = { containers: Number(process.env.KUBELET_BENCH_SHIM_CONTAINERS) || 30, settleSeconds: 10, ...options };
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-shimpss-'));
  const stateDir = join(dir, 'state');
  const runId = randomUUID();
  const runtime = await startEmbeddedRuntimeProcess(join(dir, 'cri.sock'), stateDir);
  const cri = createCriClient({ endpoint: runtime.endpoint, readTimeoutMs: 30_000 });
  try {
    const place = { runId, logRoot: join(dir, 'logs'), cgroupParent: undefined };
    for (let i = 0; i < o.containers; i++) {
      const config = sandboxConfig(place, `shimpss-${i}`);
      const sandbox = await cri.runtime.runPodSandbox(config);
      const id = await cri.runtime.createContainer(sandbox, sleeperConfig(IMAGE, 'sleeper'), config);
      await cri.runtime.startContainer(id);
    }
    const running = (await cri.runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).length;
    if (running !== o.containers) throw new Error(`shimpss: ${running} of ${o.containers} containers running`);
    await new Promise((r) => setTimeout(r, o.settleSeconds * 1000));
    const shims = pidsWithCommandLine(join(stateDir, 'shims')).filter((pid) => pid !== runtime.pid);
    const pss = shims.reduce((sum, pid) => sum + pssMiB(pid), 0);
    const rss = shims.reduce((sum, pid) => sum + rssMiB(pid), 0);
    const runtimePss = pssMiB(runtime.pid);
    return {
      containers: running,
      shimProcesses: shims.length,
      shimsTotalPssMiB: round(pss, 1),
      pssPerContainerMiB: round(pss / running, 2),
      shimsTotalRssMiB: round(rss, 1),
      rssPerContainerMiB: round(rss / running, 2),
      // PSS moves between processes that share pages (Node's text above all): fewer shims leave the
      // runtime a larger share, so the sum with the runtime is what a change saves.
      runtimePssMiB: round(runtimePss, 1),
      runtimeAndShimsPssMiB: round(runtimePss + pss, 1),
    };
  } finally {
    await tearDownRun(cri, runId);
    cri.close();
    await runtime.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
