/**
 * The bare HTTP/2 client of the relist's calls, against a grpc-js server: what grpc-js's client
 * would hand back must come back here too — answers, statuses with their details, deadlines, a
 * runtime that is away or comes back, and messages over the size limit.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { IncomingHttpHeaders, IncomingHttpStatusHeader } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  framedMessage, grpcTimeout, http2UnaryClient, statusForHttp, statusIn, unframedMessage, type Http2UnaryClient,
} from '../../../src/adapters/cri-grpc/http2-unary-client.js';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';
import { unaryCall, type UnaryClient } from '../../../src/adapters/cri-grpc/unary-call.js';
import { builtModule, runScriptInChild } from '../../support/script-in-child.js';
import { fakeCriServer, runtimeLatency, StatusError, type FakeCriServer, type Handlers } from './fake-cri-server.js';

const MAX = 16 * 1024 * 1024;
const never = () => new Promise<never>(() => {});

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(handlers: Handlers): Promise<FakeCriServer> {
  const server = fakeCriServer(handlers);
  cleanups.push(() => server.dispose());
  await server.start();
  return server;
}

function bareClient(server: FakeCriServer, maxMessageBytes = MAX): Http2UnaryClient {
  const client = http2UnaryClient(server.socketPath, { maxMessageBytes });
  cleanups.push(() => client.close());
  return client;
}

function grpcJsClient(server: FakeCriServer): grpc.Client {
  const client = new grpc.Client(server.endpoint, grpc.credentials.createInsecure());
  cleanups.push(() => client.close());
  return client;
}

const listContainers = (client: UnaryClient, timeoutMs = 2_000) =>
  unaryCall(client, loadCriProto().runtimeService.ListContainers, { filter: { label_selector: { app: 'web' } } }, timeoutMs);

const container = {
  id: 'c-1', pod_sandbox_id: 's-1', metadata: { name: 'web', attempt: 2 }, image: { image: 'busybox' }, image_ref: 'sha256:ab',
  state: 'CONTAINER_RUNNING', created_at: '1700000000123456789', labels: { app: 'web' }, annotations: { note: 'ünïcode' },
};

describe('http2UnaryClient', () => {
  it('hands back what grpc-js hands back, and the server reads the same request', async () => {
    const server = await serve({ ListContainers: () => ({ containers: [container] }) });
    const bare = await listContainers(bareClient(server));
    const viaGrpcJs = await listContainers(grpcJsClient(server));
    expect(bare).toEqual(viaGrpcJs);
    expect(bare.containers[0]).toMatchObject({ id: 'c-1', created_at: '1700000000123456789', annotations: { note: 'ünïcode' } });
    expect(server.requests.map((r) => r.request)).toEqual([
      { filter: { label_selector: { app: 'web' }, id: '', pod_sandbox_id: '', state: null } },
      { filter: { label_selector: { app: 'web' }, id: '', pod_sandbox_id: '', state: null } },
    ]);
  });

  it('keeps one connection for all its calls, and opens a new one when the runtime drops it', async () => {
    const server = await serve({ ListContainers: () => ({ containers: [] }) });
    // A counting relay in front of the runtime's socket: every connection the client opens is seen.
    const relayPath = `${server.socketPath}.relay`;
    const accepted: Socket[] = [];
    const relay = createServer((socket) => {
      accepted.push(socket);
      const upstream = connect(server.socketPath);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
    });
    await new Promise<void>((done) => relay.listen(relayPath, done));
    cleanups.push(() => {
      for (const socket of accepted) socket.destroy();
      return new Promise((done) => relay.close(done));
    });
    const client = http2UnaryClient(relayPath, { maxMessageBytes: MAX });
    cleanups.push(() => client.close());

    await Promise.all([listContainers(client), listContainers(client), listContainers(client)]);
    for (let i = 0; i < 5; i += 1) await listContainers(client);
    expect(accepted).toHaveLength(1);

    accepted[0]!.destroy();
    await vi.waitFor(() => expect(accepted[0]!.destroyed).toBe(true));
    // The client learns of the closed session on its own and tells no one: a call made before then
    // may fail on the old session, so calls are retried until one is answered, on a second connection.
    await expect(vi.waitFor(() => listContainers(client), { interval: 10 })).resolves.toEqual({ containers: [] });
    expect(accepted).toHaveLength(2);
    expect(server.requests).toHaveLength(9);
  });

  it('reports the runtime\'s status with its details, percent-encoding undone', async () => {
    const server = await serve({ ListContainers: () => { throw new StatusError(grpc.status.NOT_FOUND, 'no such thing: 100% ünïcode\nsecond line'); } });
    const bare = await listContainers(bareClient(server)).catch((e: unknown) => e);
    const viaGrpcJs = await listContainers(grpcJsClient(server)).catch((e: unknown) => e);
    expect(bare).toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND', message: 'ListContainers: no such thing: 100% ünïcode\nsecond line', retryable: false });
    expect(bare).toMatchObject({ code: (viaGrpcJs as { code: string }).code, message: (viaGrpcJs as Error).message });
  });

  it('reports a method the runtime lacks as UNIMPLEMENTED', async () => {
    const server = await serve({});
    await expect(listContainers(bareClient(server))).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNIMPLEMENTED' });
  });

  it('keeps the deadline: DEADLINE_EXCEEDED, retryable, when the answer does not come in time', async () => {
    const server = await serve({ ListContainers: never });
    const started = Date.now();
    await expect(listContainers(bareClient(server), 150)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_DEADLINE', retryable: true });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('fails UNAVAILABLE while nothing listens, and reaches the runtime once it is back, with no back-off', async () => {
    const server = fakeCriServer({ ListContainers: () => ({ containers: [] }) });
    cleanups.push(() => server.dispose());
    const client = bareClient(server);
    await expect(listContainers(client)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE', retryable: true });
    await server.start();
    await expect(listContainers(client)).resolves.toEqual({ containers: [] });
    await server.stop();
    await expect(listContainers(client)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    await server.start();
    await expect(listContainers(client)).resolves.toEqual({ containers: [] });
  });

  it('refuses an answer over the size limit with RESOURCE_EXHAUSTED', async () => {
    const server = await serve({ ListContainers: () => ({ containers: [container, container] }) });
    await expect(listContainers(bareClient(server, 64))).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED', message: expect.stringContaining('Received message larger than max') as unknown });
  });

  // The property is the process's, so it is checked on a process of its own (as grpc-prober.test.ts does).
  it('holds the process open while a call is in flight, and not once it is answered', async () => {
    // The runtime's latency under test: long enough for a process that nothing holds to end first.
    const server = await serve({ ListContainers: async () => { await runtimeLatency(300); return { containers: [] }; } });
    const exit = await callInChild(server.socketPath);
    // The child ends when its event loop is empty (it never closes the client nor calls process.exit),
    // and only after the slow answer came.
    expect(exit).toEqual({ code: 0, printed: '{"containers":[]}' });
  });

  it('fails every call UNAVAILABLE once closed', async () => {
    const server = await serve({ ListContainers: () => ({ containers: [] }) });
    const client = bareClient(server);
    await listContainers(client);
    client.close();
    await expect(listContainers(client)).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });
});

describe('the gRPC framing', () => {
  it('prefixes a message with an uncompressed flag and its length, and reads it back', () => {
    const frame = framedMessage(Buffer.from('abc'));
    expect([...frame]).toEqual([0, 0, 0, 0, 3, 0x61, 0x62, 0x63]);
    expect(unframedMessage(frame)).toEqual(Buffer.from('abc'));
    expect(unframedMessage(framedMessage(Buffer.alloc(0)))).toEqual(Buffer.alloc(0));
  });

  it('names what is wrong with a body that is not one whole uncompressed message', () => {
    expect(unframedMessage(Buffer.from([0, 0]))).toEqual({ problem: 'the answer holds no message' });
    expect(unframedMessage(Buffer.from([1, 0, 0, 0, 1, 9]))).toEqual({ problem: 'the answer is compressed, which was not asked for' });
    expect(unframedMessage(Buffer.from([0, 0, 0, 0, 4, 9]))).toEqual({ problem: 'the answer\'s prefix announces 4 bytes, 1 came' });
  });

  it('writes grpc-timeout in at most 8 digits', () => {
    expect(grpcTimeout(1_999.2)).toBe('2000m');
    expect(grpcTimeout(-5)).toBe('0m');
    expect(grpcTimeout(99_999_999)).toBe('99999999m');
    expect(grpcTimeout(100_000_000)).toBe('100000S');
  });

  it('reads a status from trailers, and maps an HTTP status that came without one', () => {
    expect(statusIn({ 'grpc-status': '5', 'grpc-message': 'not%20found' })).toEqual({ code: grpc.status.NOT_FOUND, details: 'not found' });
    expect(statusIn({ 'grpc-status': '0' })).toEqual({ code: grpc.status.OK, details: '' });
    expect(statusIn({ 'grpc-status': 'x', 'grpc-message': '%E0' })).toEqual({ code: grpc.status.UNKNOWN, details: '%E0' });
    // Node hands a response's :status as a number beside the string headers (the 'response' listener's type).
    const plainResponse = Object.assign({} as IncomingHttpHeaders, { ':status': 200 } satisfies IncomingHttpStatusHeader);
    expect(statusIn(plainResponse)).toBeNull();
    expect(statusForHttp(404)).toBe(grpc.status.UNIMPLEMENTED);
    expect(statusForHttp(503)).toBe(grpc.status.UNAVAILABLE);
    expect(statusForHttp(500)).toBe(grpc.status.UNKNOWN);
  });
});

/** One ListContainers in a process importing the built client, which it never closes; it prints the answer. */
async function callInChild(socketPath: string): Promise<{ code: number | null; printed: string }> {
  const script = `
    const { http2UnaryClient } = await import(${builtModule('dist/src/adapters/cri-grpc/http2-unary-client.js')});
    const { loadCriProto } = await import(${builtModule('dist/src/adapters/cri-grpc/proto.js')});
    const { unaryCall } = await import(${builtModule('dist/src/adapters/cri-grpc/unary-call.js')});
    const client = http2UnaryClient(${JSON.stringify(socketPath)}, { maxMessageBytes: 1024 });
    unaryCall(client, loadCriProto().runtimeService.ListContainers, {}, 5000).then((answer) => process.stdout.write(JSON.stringify(answer)));`;
  const { code, stdout } = await runScriptInChild(script);
  return { code, printed: stdout };
}
