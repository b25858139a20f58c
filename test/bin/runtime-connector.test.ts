/**
 * run.preInitRuntime's connector with the embedded runtime: the kubelet's own client calls the
 * runtime in process, while the socket keeps serving everyone else.
 */
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { EMBEDDED_RUNTIME_NAME } from '../../src/adapters/embedded-runtime/index.js';
import { createRuntimeConnector } from '../../src/bin/runtime-connector.js';

let rootDir: string;
const cleanups: (() => unknown)[] = [];

beforeEach(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'kts-connector-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(rootDir, { recursive: true, force: true });
});

describe('the runtime connector with the embedded runtime', () => {
  it('calls the runtime in process, and serves its socket to other clients', async () => {
    const counts = { calls: new Map<string, { count: number; errors: number }>() };
    const connector = createRuntimeConnector(pino({ level: 'silent' }), counts);
    const runtime = await connector.startEmbedded(rootDir);
    cleanups.push(() => runtime.close());
    const other = createCriClient({ endpoint: runtime.endpoint, runtimeRequestTimeoutMs: 5_000 });
    cleanups.push(() => other.close());
    await expect(other.runtime.version()).resolves.toMatchObject({ runtime_name: EMBEDDED_RUNTIME_NAME });

    // Without its socket file the runtime is out of reach for a new connection, but not for the kubelet,
    // whose client has never connected to it.
    await unlink(runtime.endpoint.slice('unix://'.length));
    const late = createCriClient({ endpoint: runtime.endpoint, runtimeRequestTimeoutMs: 5_000 });
    cleanups.push(() => late.close());
    await expect(late.runtime.version()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    const kubelet = await connector.connect({ endpoint: runtime.endpoint, runtimeRequestTimeoutMs: 5_000 });
    cleanups.push(() => kubelet.close());
    await expect(kubelet.runtime.version()).resolves.toMatchObject({ runtime_name: EMBEDDED_RUNTIME_NAME });
    await expect(kubelet.runtime.listPodSandbox()).resolves.toEqual([]);
    expect(counts.calls.get('version')).toEqual({ count: 1, errors: 0 });

    await runtime.close();
    await expect(kubelet.runtime.version()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });
});
