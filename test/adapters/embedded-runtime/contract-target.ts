/**
 * The embedded runtime as a target of the CRI contract suite (test/adapters/cri.contract.test.ts):
 * add `embeddedRuntimeTarget()` to EXTRA_TARGETS in test/adapters/cri-contract/targets.ts. Twice: over
 * its socket, and over the in-process channel the kubelet uses when it runs the runtime itself.
 * Each start() gets its own temp state dir and socket; stop() removes every sandbox still there (so no
 * host process outlives the suite — closing the runtime alone would leave containers running, as
 * stopping containerd does), then closes the client and the runtime and deletes the temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCriClient } from '../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../../../src/adapters/embedded-runtime/index.js';
import type { CriTarget } from '../cri-contract/targets.js';

export function embeddedRuntimeTarget({ inProcess = false } = {}): CriTarget {
  return {
    name: inProcess ? 'embedded runtime, in process' : 'embedded runtime',
    image: 'kubelet-ts.local/busybox:1.0',
    async start() {
      const dir = await mkdtemp(join(tmpdir(), 'klt-embedded-contract-'));
      const runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state') });
      const cri = createCriClient({
        endpoint: runtime.endpoint,
        runtimeRequestTimeoutMs: 30_000,
        ...(inProcess ? { inProcess: { endpoint: runtime.endpoint, channel: runtime.inProcessChannel } } : {}),
      });
      return {
        cri,
        async stop() {
          for (const sandbox of await cri.runtime.listPodSandbox().catch(() => [])) {
            await cri.runtime.removePodSandbox(sandbox.id).catch(() => undefined);
          }
          cri.close();
          await runtime.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
