/**
 * The in-process channel: the project's CRI client over a table of operations, no socket. What a
 * socket would do must hold here too: answers through both codecs, gRPC statuses mapped to the same
 * KubeletErrors, deadlines, and UNAVAILABLE once the runtime stops.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createCriClient, loadCriProto, type GrpcCriClient } from '../../../src/adapters/cri-grpc/index.js';
import { inProcessServer, type InProcessServer } from '../../../src/adapters/embedded-runtime/in-process-channel.js';
import { KubeletError } from '../../../src/domain/errors.js';

/** No socket is ever made here: the endpoint only names the runtime served in process. */
const ENDPOINT = 'unix:///nonexistent/in-process-test.sock';

function clientOf(operations: object): { server: InProcessServer; cri: GrpcCriClient } {
  const proto = loadCriProto();
  const server = inProcessServer([
    { definition: proto.runtimeService, operations },
    { definition: proto.imageService, operations },
  ], pino({ level: 'silent' }));
  const cri = createCriClient({ endpoint: ENDPOINT, inProcess: { endpoint: ENDPOINT, channel: server.channel } });
  return { server, cri };
}

describe('the in-process channel', () => {
  it('hands the client what the wire would: defaults filled, int64 as strings, a copy of the answer', async () => {
    const sandbox = { id: 'sb-1', metadata: { name: 'p', uid: 'u', namespace: 'ns', attempt: 1 }, created_at: 1700000000000000000n.toString(), labels: { a: 'b' } };
    const { cri } = clientOf({
      Version: () => ({ runtime_name: 'in-process' }),
      ListPodSandbox: () => ({ items: [sandbox] }),
    });
    await expect(cri.runtime.version()).resolves.toEqual({ version: '', runtime_name: 'in-process', runtime_version: '', runtime_api_version: '' });
    const [listed] = await cri.runtime.listPodSandbox();
    expect(listed).toMatchObject({ id: 'sb-1', state: 'SANDBOX_READY', created_at: '1700000000000000000', labels: { a: 'b' } });
    expect(listed).not.toBe(sandbox);
    expect(listed!.labels).not.toBe(sandbox.labels);
  });

  it('passes the request through both codecs', async () => {
    const seen: unknown[] = [];
    const { cri } = clientOf({
      StopContainer: (request: unknown) => { seen.push(request); return {}; },
    });
    await cri.runtime.stopContainer('c-1', 30);
    expect(seen).toEqual([{ container_id: 'c-1', timeout: '30' }]);
  });

  it('maps failures to the KubeletErrors the socket gives, with the RPC named', async () => {
    const { cri } = clientOf({
      ContainerStatus: () => { throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'container "c-9" not found'); },
      RemoveContainer: () => Promise.reject(new Error('disk on fire')),
    });
    await expect(cri.runtime.containerStatus('c-9')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND', message: 'ContainerStatus: container "c-9" not found', retryable: false });
    await expect(cri.runtime.removeContainer('c-9')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED', message: 'RemoveContainer: disk on fire' });
    // Not in the table: UNIMPLEMENTED, as grpc-js answers for a method the server lacks.
    await expect(cri.runtime.runtimeConfig()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNIMPLEMENTED' });
  });

  it('keeps the deadline: an answer that does not come in time is DEADLINE_EXCEEDED, a late one is dropped', async () => {
    let answer: (value: object) => void = () => undefined;
    const { cri } = clientOf({ Status: () => new Promise((resolve) => { answer = resolve; }) });
    const started = Date.now();
    await expect(cri.runtime.status(false, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_DEADLINE', retryable: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    answer({});
  });

  it('answers UNAVAILABLE once the runtime stops, and once a client closes its own channel', async () => {
    const { server, cri } = clientOf({ Version: () => ({ runtime_name: 'in-process' }) });
    const other = createCriClient({ endpoint: ENDPOINT, inProcess: { endpoint: ENDPOINT, channel: server.channel } });
    cri.close();
    await expect(cri.runtime.version()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE', retryable: true });
    await expect(other.runtime.version()).resolves.toMatchObject({ runtime_name: 'in-process' });
    server.stop();
    await expect(other.runtime.version()).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });

  it('serves the image service on the same channel', async () => {
    const { cri } = clientOf({ ListImages: () => ({ images: [{ id: 'sha256:1', repo_tags: ['busybox:1'], size: '5' }] }) });
    await expect(cri.images.listImages()).resolves.toMatchObject([{ id: 'sha256:1', repo_tags: ['busybox:1'], size: '5', pinned: false }]);
  });
});
