/**
 * CRI Exec, Attach and PortForward refuse what Go's streaming server and containerd refuse, with
 * their codes and messages, before any URL is handed out.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fx: RuntimeFixture;
let running: { sandboxId: string; containerId: string };
let exited: string;

beforeAll(async () => {
  fx = await startRuntimeFixture();
  // A container that stays up for the streams to reach; the test stops it.
  running = await fx.runContainer('running', ['sh', '-c', 'sleep 3600']);
  exited = (await fx.runContainer('exited', ['true'])).containerId;
  await vi.waitUntil(async () => (await fx.cri.runtime.containerStatus(exited)).status?.state === 'CONTAINER_EXITED', { timeout: 5000, interval: 25 });
});
afterAll(async () => fx?.stop());

async function refusal(rpc: 'Exec' | 'Attach' | 'PortForward', request: object): Promise<{ code: number; details: string }> {
  return fx.call(rpc, request).then(() => ({ code: GrpcStatus.OK, details: 'answered a URL' }), (err: { code: number; details: string }) => err);
}

describe('Exec and Attach requests', () => {
  for (const rpc of ['Exec', 'Attach'] as const) {
    const base = () => ({ container_id: running.containerId, cmd: ['true'], stdout: true });
    it(`${rpc}: INVALID_ARGUMENT for a missing id, tty with stderr, no stream at all`, async () => {
      expect(await refusal(rpc, { ...base(), container_id: '' })).toEqual(expect.objectContaining({ code: GrpcStatus.INVALID_ARGUMENT, details: 'missing required container_id' }));
      expect(await refusal(rpc, { ...base(), tty: true, stderr: true })).toEqual(expect.objectContaining({ code: GrpcStatus.INVALID_ARGUMENT, details: 'tty and stderr cannot both be true' }));
      const none = await refusal(rpc, { ...base(), stdout: false });
      expect(none.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(none.details).toBe(rpc === 'Exec' ? 'one of stdin, stdout, or stderr must be set' : 'one of stdin, stdout, and stderr must be set');
    });

    it(`${rpc}: NOT_FOUND for an unknown container, an error for one that is not running`, async () => {
      expect((await refusal(rpc, { ...base(), container_id: 'f'.repeat(64) })).code).toBe(GrpcStatus.NOT_FOUND);
      const stopped = await refusal(rpc, { ...base(), container_id: exited });
      expect(stopped.code).toBe(GrpcStatus.UNKNOWN);
      expect(stopped.details).toMatch(/is in CONTAINER_EXITED state/);
    });
  }

  it('Exec: an empty command is INVALID_ARGUMENT', async () => {
    expect((await refusal('Exec', { container_id: running.containerId, cmd: [], stdout: true })).code).toBe(GrpcStatus.INVALID_ARGUMENT);
  });
});

describe('PortForward requests', () => {
  it('INVALID_ARGUMENT without a sandbox id, NOT_FOUND for an unknown one, an error for a stopped one', async () => {
    expect(await refusal('PortForward', { pod_sandbox_id: '' })).toEqual(expect.objectContaining({ code: GrpcStatus.INVALID_ARGUMENT, details: 'missing required pod_sandbox_id' }));
    expect((await refusal('PortForward', { pod_sandbox_id: 'e'.repeat(64) })).code).toBe(GrpcStatus.NOT_FOUND);
    const { sandboxId } = await fx.runContainer('stopped-pod', ['true']);
    await fx.cri.runtime.stopPodSandbox(sandboxId);
    const stopped = await refusal('PortForward', { pod_sandbox_id: sandboxId, port: [80] });
    expect(stopped.details).toMatch(/is not running/);
  });

  it('answers a portforward URL for a ready sandbox', async () => {
    const { url } = await fx.call<{ url: string }>('PortForward', { pod_sandbox_id: running.sandboxId, port: [8080] });
    expect(url).toMatch(new RegExp(`^${fx.runtime.streamingUrl}/portforward/[A-Za-z0-9_-]{11}$`));
  });
});
