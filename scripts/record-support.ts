/** What the event-log recorders share: waiting on a condition, and removing the pods a run left. */
import { join } from 'node:path';
import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../src/adapters/embedded-runtime/index.js';

/** Polls `probe` every 100 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops and removes every pod in the embedded runtime under `root` (the kubelet must be stopped). */
export async function removeEmbeddedPods(root: string): Promise<void> {
  const runtime = await startEmbeddedRuntime({ socketPath: join(root, 'cleanup.sock'), stateDir: join(root, 'embedded-runtime') });
  const cri = createCriClient({ endpoint: runtime.endpoint });
  for (const s of await cri.runtime.listPodSandbox()) {
    for (const c of await cri.runtime.listContainers({ pod_sandbox_id: s.id })) await cri.runtime.stopContainer(c.id, 0);
    await cri.runtime.stopPodSandbox(s.id);
    await cri.runtime.removePodSandbox(s.id);
  }
  cri.close();
  await runtime.close();
}
