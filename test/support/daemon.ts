/**
 * What the end-to-end tests of the real binary share: waiting for a condition, a free loopback port,
 * and removing the pods a test left in a runtime (they outlive the kubelet, as with the Go kubelet).
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../../src/adapters/embedded-runtime/index.js';

/** Polls `probe` until it gives a truthy value; the error names `what`, the last value and `context()`. */
export async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 30_000, context: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last instanceof Error ? last.message : last)})\n${context().slice(-3000)}`);
}

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
}

/**
 * Stops and removes the sandboxes `keep` selects, through `endpoint` — or, for the embedded runtime,
 * through a fresh embedded runtime on the kubelet's state dir (`<rootDir>/embedded-runtime`).
 */
export async function removePods(opts: { endpoint: string; rootDir: string; select?: (sandboxName: string) => boolean }): Promise<void> {
  const embedded = opts.endpoint === 'embedded';
  const runtime = embedded
    ? await startEmbeddedRuntime({ socketPath: join(opts.rootDir, 'cleanup.sock'), stateDir: join(opts.rootDir, 'embedded-runtime') })
    : null;
  const cri = createCriClient({ endpoint: runtime?.endpoint ?? opts.endpoint });
  try {
    for (const s of await cri.runtime.listPodSandbox()) {
      if (opts.select && !opts.select(s.metadata.name)) continue;
      for (const c of await cri.runtime.listContainers({ pod_sandbox_id: s.id })) await cri.runtime.stopContainer(c.id, 0).catch(() => {});
      await cri.runtime.stopPodSandbox(s.id).catch(() => {});
      await cri.runtime.removePodSandbox(s.id);
    }
  } finally {
    cri.close();
    await runtime?.close();
  }
}
