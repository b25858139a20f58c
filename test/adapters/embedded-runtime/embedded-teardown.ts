/**
 * The end of a test on the embedded runtime: what it started torn down through CRI first (what a
 * kubelet would do), then every process it started checked to be gone.
 */
import { vi } from 'vitest';
import type { GrpcCriClient } from '../../../src/adapters/cri-grpc/index.js';
import type { EmbeddedRuntime } from '../../../src/adapters/embedded-runtime/index.js';
import { identifyProcess } from '../../../src/adapters/embedded-runtime/shim/proc-stat.js';

/** kill(pid, 0) says yes for a zombie too, so a zombie (state Z in /proc) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return identifyProcess(pid) !== undefined;
}

/**
 * Removes every sandbox, closes the client and the runtime, and kills (by process group) what
 * outlived them among `pids`. Returns those leftovers: the test fails on any.
 */
export async function tearDownEmbedded(client: GrpcCriClient | undefined, runtime: EmbeddedRuntime | undefined, pids: ReadonlySet<number>): Promise<number[]> {
  if (client) {
    for (const sandbox of await client.runtime.listPodSandbox().catch(() => [])) {
      await client.runtime.removePodSandbox(sandbox.id).catch(() => undefined);
    }
    client.close();
  }
  await runtime?.close();
  // A shim exits just after writing exit.json; give it a moment before calling it a leftover.
  await vi.waitUntil(() => ![...pids].some(isAlive), { timeout: 3000, interval: 25 }).catch(() => undefined);
  const leftovers = [...pids].filter(isAlive);
  for (const pid of leftovers) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  }
  return leftovers;
}
