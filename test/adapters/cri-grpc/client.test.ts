import { createServer } from 'node:net';
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createCriClient, type GrpcCriClient } from '../../../src/adapters/cri-grpc/client.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { PodSandboxConfig } from '../../../src/ports/cri.js';
import { fakeCriServer, runtimeLatency, StatusError, type FakeCriServer, type Handlers } from './fake-cri-server.js';

const never = () => new Promise<never>(() => {});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(runtime: Handlers, image: Handlers = {}): Promise<FakeCriServer> {
  const server = fakeCriServer(runtime, image);
  cleanups.push(() => server.dispose());
  await server.start();
  return server;
}

function client(opts: Parameters<typeof createCriClient>[0]): GrpcCriClient {
  const c = createCriClient(opts);
  cleanups.push(() => c.close());
  return c;
}

async function rejection(p: Promise<unknown>): Promise<KubeletError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(KubeletError);
  return err as KubeletError;
}

const sandboxConfig: PodSandboxConfig = { metadata: { name: 'p', uid: 'u1', namespace: 'default', attempt: 0 } };

describe('createCriClient', () => {
  it('rejects a non-unix endpoint before connecting', () => {
    expect(() => createCriClient({ endpoint: 'tcp://127.0.0.1:1' })).toThrow(KubeletError);
    expect(() => createCriClient({ endpoint: 'unix:///tmp/x.sock', imageEndpoint: '/tmp/y.sock' })).toThrow(/image|unix/);
  });

  it('sends the kubelet API version and returns the runtime version as the port shape', async () => {
    const server = await serve({
      Version: () => ({ version: '0.1.0', runtime_name: 'fake', runtime_version: '9.9', runtime_api_version: 'v1' }),
    });
    const cri = client({ endpoint: server.endpoint });
    await expect(cri.runtime.version()).resolves.toEqual(
      { version: '0.1.0', runtime_name: 'fake', runtime_version: '9.9', runtime_api_version: 'v1' });
    expect(server.requests[0]).toEqual({ rpc: 'Version', request: { version: '0.1.0' } });
  });

  it('keeps every digit of int64 nanosecond timestamps as decimal strings', async () => {
    const server = await serve({
      ListContainers: () => ({ containers: [{ id: 'c1', pod_sandbox_id: 's1', state: 'CONTAINER_RUNNING', created_at: '1795303315659029051' }] }),
    });
    const [c] = await client({ endpoint: server.endpoint }).runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    expect(c?.created_at).toBe('1795303315659029051');
    expect(c?.state).toBe('CONTAINER_RUNNING');
    expect(c?.labels).toEqual({});
    expect(server.requests[0]?.request.filter).toMatchObject({ state: { state: 'CONTAINER_RUNNING' } });
  });

  it('delivers env values as exact bytes, whether given as Buffers or as strings', async () => {
    const server = await serve({ CreateContainer: () => ({ container_id: 'c1' }) });
    const cri = client({ endpoint: server.endpoint });
    const id = await cri.runtime.createContainer('s1', {
      metadata: { name: 'c', attempt: 0 },
      image: { image: 'busybox' },
      envs: [
        { key: 'DOLLAR', value: Buffer.from('$HOME and $(X)') },
        { key: 'UNICODE', value: Buffer.from('héllo → 世界') },
        // A string that is valid base64 is where protobufjs would silently decode it.
        { key: 'FROM_JSON', value: 'bar' as unknown as Buffer },
      ],
    }, sandboxConfig);
    expect(id).toBe('c1');
    const envs = (server.requests[0]?.request.config as { envs: { key: string; value: Buffer }[] }).envs;
    expect(envs.map((e) => [e.key, e.value.toString('utf8')])).toEqual([
      ['DOLLAR', '$HOME and $(X)'], ['UNICODE', 'héllo → 世界'], ['FROM_JSON', 'bar']]);
  });

  it('returns ExecSync output as Buffers with the exit code', async () => {
    const server = await serve({ ExecSync: () => ({ stdout: Buffer.from('out\n'), stderr: Buffer.from('err\n'), exit_code: 7 }) });
    const res = await client({ endpoint: server.endpoint }).runtime.execSync('c1', ['sh', '-c', 'exit 7'], 3);
    expect(res.stdout.toString()).toBe('out\n');
    expect(res.stderr.toString()).toBe('err\n');
    expect(res.exit_code).toBe(7);
    expect(server.requests[0]?.request).toMatchObject({ container_id: 'c1', cmd: ['sh', '-c', 'exit 7'], timeout: '3' });
  });

  it.each([
    [status.NOT_FOUND, 'KLT_ERR_CRI_NOT_FOUND'],
    [status.ALREADY_EXISTS, 'KLT_ERR_CRI_ALREADY_EXISTS'],
    [status.INVALID_ARGUMENT, 'KLT_ERR_CRI_INVALID_ARGUMENT'],
    [status.UNKNOWN, 'KLT_ERR_CRI_FAILED'],
  ] as const)('maps a runtime answering status %s to %s, keeping its message', async (code, expected) => {
    const server = await serve({ ContainerStatus: () => { throw new StatusError(code, 'an error from the runtime: xyz'); } });
    const err = await rejection(client({ endpoint: server.endpoint }).runtime.containerStatus('nope'));
    expect(err.code).toBe(expected);
    expect(err.message).toContain('an error from the runtime: xyz');
  });

  it('reports an RPC the runtime does not implement as KLT_ERR_CRI_UNIMPLEMENTED', async () => {
    const server = await serve({});
    const err = await rejection(client({ endpoint: server.endpoint }).runtime.runtimeConfig());
    expect(err.code).toBe('KLT_ERR_CRI_UNIMPLEMENTED');
  });

  it('gives reads the short deadline and reports KLT_ERR_CRI_DEADLINE when it passes', async () => {
    // A runtime slower than the call's deadline.
    const server = await serve({ ListPodSandbox: never, RunPodSandbox: async () => { await runtimeLatency(400); return { pod_sandbox_id: 's1' }; } });
    const cri = client({ endpoint: server.endpoint, readTimeoutMs: 150, runtimeRequestTimeoutMs: 2_000 });
    const started = Date.now();
    const err = await rejection(cri.runtime.listPodSandbox());
    expect(err.code).toBe('KLT_ERR_CRI_DEADLINE');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
    // The same 400 ms is fine for a mutating call under runtimeRequestTimeout.
    await expect(cri.runtime.runPodSandbox(sandboxConfig)).resolves.toBe('s1');
  });

  it('lets a per-call timeoutMs override the default deadline', async () => {
    // A runtime slower than the call's deadline.
    const server = await serve({ Status: async () => { await runtimeLatency(300); return { status: { conditions: [] }, info: {} }; } });
    const cri = client({ endpoint: server.endpoint, readTimeoutMs: 100 });
    await expect(cri.runtime.status(false, { timeoutMs: 2_000 })).resolves.toMatchObject({ status: { conditions: [] } });
  });

  it('extends the StopContainer deadline by the grace period', async () => {
    // A runtime slower than the call's deadline.
    const server = await serve({ StopContainer: async () => { await runtimeLatency(700); return {}; } });
    const cri = client({ endpoint: server.endpoint, runtimeRequestTimeoutMs: 300 });
    await expect(cri.runtime.stopContainer('c1', 1)).resolves.toBeUndefined();
    expect(server.requests[0]?.request).toMatchObject({ container_id: 'c1', timeout: '1' });
    expect((await rejection(cri.runtime.stopContainer('c1', 0))).code).toBe('KLT_ERR_CRI_DEADLINE');
  });

  it('asks for Exec, Attach and PortForward sessions and answers each URL the runtime gives', async () => {
    const server = await serve({
      Exec: (r) => ({ url: `http://127.0.0.1:1/exec/${String(r.container_id)}` }),
      Attach: (r) => ({ url: `http://127.0.0.1:1/attach/${String(r.container_id)}` }),
      PortForward: (r) => ({ url: `http://127.0.0.1:1/portforward/${String(r.pod_sandbox_id)}` }),
    });
    const cri = client({ endpoint: server.endpoint });
    await expect(cri.runtime.exec!({ container_id: 'c1', cmd: ['sh', '-c', 'true'], stdin: true, stdout: true, tty: true }))
      .resolves.toBe('http://127.0.0.1:1/exec/c1');
    await expect(cri.runtime.attach!({ container_id: 'c2', stdout: true, stderr: true })).resolves.toBe('http://127.0.0.1:1/attach/c2');
    await expect(cri.runtime.portForward!('s1', [8080])).resolves.toBe('http://127.0.0.1:1/portforward/s1');
    expect(server.requests.map((r) => r.request)).toMatchObject([
      { container_id: 'c1', cmd: ['sh', '-c', 'true'], tty: true, stdin: true, stdout: true, stderr: false },
      { container_id: 'c2', stdin: false, tty: false, stdout: true, stderr: true },
      { pod_sandbox_id: 's1', port: [8080] },
    ]);
  });

  it('rejects a streaming call the runtime does not serve with KLT_ERR_CRI_UNIMPLEMENTED', async () => {
    const server = await serve({});
    const err = await rejection(client({ endpoint: server.endpoint }).runtime.exec!({ container_id: 'c1', cmd: ['true'], stdout: true }));
    expect(err.code).toBe('KLT_ERR_CRI_UNIMPLEMENTED');
  });

  it('extends the ExecSync deadline by the command timeout', async () => {
    // A runtime slower than the call's deadline.
    const server = await serve({ ExecSync: async () => { await runtimeLatency(700); return { exit_code: 0 }; } });
    const cri = client({ endpoint: server.endpoint, runtimeRequestTimeoutMs: 300 });
    await expect(cri.runtime.execSync('c1', ['true'], 1)).resolves.toMatchObject({ exit_code: 0 });
    expect((await rejection(cri.runtime.execSync('c1', ['true'], 0))).code).toBe('KLT_ERR_CRI_DEADLINE');
  });

  it('sends image calls to the separate image endpoint when one is given', async () => {
    const runtimeServer = await serve({}, { ListImages: () => ({ images: [{ id: 'wrong' }] }) });
    const imageServer = await serve({}, {
      ListImages: () => ({ images: [{ id: 'sha256:abc', repo_tags: ['x:1'], size: '1032277' }] }),
      ImageStatus: () => ({ image: null, info: {} }),
    });
    const cri = client({ endpoint: runtimeServer.endpoint, imageEndpoint: imageServer.endpoint });
    const images = await cri.images.listImages();
    expect(images.map((i) => [i.id, i.size])).toEqual([['sha256:abc', '1032277']]);
    await expect(cri.images.imageStatus({ image: 'absent:1' })).resolves.toMatchObject({ image: null });
    expect(runtimeServer.requests).toHaveLength(0);
  });

  it('fails fast with a retryable KLT_ERR_CRI_UNAVAILABLE when nothing listens', async () => {
    const server = fakeCriServer({});
    cleanups.push(() => server.dispose());
    const cri = client({ endpoint: server.endpoint });
    const started = Date.now();
    const err = await rejection(cri.runtime.version({ timeoutMs: 10_000 }));
    expect(err.code).toBe('KLT_ERR_CRI_UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('uses a runtime that comes back after a restart without recreating the client, from the first call after', async () => {
    const server = await serve({ Version: () => ({ version: '0.1.0', runtime_name: 'fake', runtime_version: '1', runtime_api_version: 'v1' }) });
    const cri = client({ endpoint: server.endpoint });
    await expect(cri.runtime.version()).resolves.toMatchObject({ runtime_name: 'fake' });

    await server.stop();
    expect((await rejection(cri.runtime.version())).code).toBe('KLT_ERR_CRI_UNAVAILABLE');
    // While the runtime is away, something that hangs up at once sits on the socket: each call dials
    // once and fails, and nothing dials between calls (no back-off to wait out when it returns).
    let dials = 0;
    const away = createServer((socket) => {
      dials += 1;
      socket.destroy();
    });
    await new Promise<void>((done) => away.listen(server.socketPath, done));
    try {
      expect((await rejection(cri.runtime.version())).code).toBe('KLT_ERR_CRI_UNAVAILABLE');
      expect((await rejection(cri.runtime.version())).code).toBe('KLT_ERR_CRI_UNAVAILABLE');
      expect(dials).toBe(2);
    } finally {
      await new Promise((done) => away.close(done));
    }
    await server.start();

    await expect(cri.runtime.version()).resolves.toMatchObject({ runtime_name: 'fake' });
  });

  it('rejects calls after close() with a KubeletError instead of throwing', async () => {
    const server = await serve({ Version: () => ({ version: '0.1.0' }) });
    const cri = createCriClient({ endpoint: server.endpoint });
    cri.close();
    cri.close();
    const err = await rejection(cri.runtime.version());
    expect(err.code).toMatch(/^KLT_ERR_CRI_/);
  });
});
