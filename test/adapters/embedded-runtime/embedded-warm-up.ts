/**
 * A file's first start of the embedded runtime from the sources pays what its process has not loaded
 * yet: TypeScript, imported to transpile the shim, and the CRI proto. On a loaded 2-core machine that
 * took over a minute, failing whichever test came first; started and closed once before the tests,
 * each test's bound is its own work's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCriClient } from '../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../../../src/adapters/embedded-runtime/index.js';

/** The warm-up's bound: generous for a loaded 2-core machine, never a figure. */
export const WARM_UP_TIMEOUT_MS = 180_000;

/** Starts a runtime on a directory of its own, asks it its version, and closes it. */
export async function warmUpEmbeddedRuntime(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'klt-embedded-warm-'));
  try {
    const runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state') });
    const client = createCriClient({ endpoint: runtime.endpoint });
    try {
      await client.runtime.version();
    } finally {
      client.close();
      await runtime.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
