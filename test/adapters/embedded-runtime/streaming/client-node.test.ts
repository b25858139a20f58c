/**
 * @kubernetes/client-node's Exec, Attach and PortForward (its WebSocketHandler: v5/v4 channel
 * protocols, its own framing and status parsing) against the embedded runtime's streaming server.
 * client-node builds API-server paths (/api/v1/namespaces/…/exec?…); its socket factory is pointed at
 * the URL the CRI call answered instead, with `ports` turned into `port` as the API server does when
 * it proxies to a kubelet.
 */
// client-node 2.0.1's undici needs Node 22 functions: the project's stand-ins first (see that file).
import '../../../../src/adapters/apiserver/node20-compat.js';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { Attach, Exec, KubeConfig, PortForward, type V1Status } from '@kubernetes/client-node';
// Not re-exported by the package's index; the package has no `exports` map, so its module is reachable.
import { WebSocketHandler } from '@kubernetes/client-node/dist/web-socket-handler.js';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

let fx: RuntimeFixture;
let kc: KubeConfig;

beforeAll(async () => {
  fx = await startRuntimeFixture();
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});
afterAll(async () => fx?.stop());

/** A WebSocketHandler whose sockets go to `url` (plus the API path's `ports` as `port`). */
function handlerFor(url: () => string): WebSocketHandler {
  return new WebSocketHandler(kc, (uri, protocols, opts) => {
    const ports = new URL(uri.replace(/^ws/, 'http')).searchParams.getAll('ports');
    const query = ports.map((p) => `port=${p}`).join('&');
    return new WebSocket(`${url().replace(/^http/, 'ws')}${query ? `?${query}` : ''}`, protocols, opts);
  });
}

class Collect extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer, _e: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk);
    cb();
  }
  get text(): string {
    return Buffer.concat(this.chunks).toString();
  }
}

describe('client-node against the embedded streaming server', () => {
  it('Exec: stdout, stderr, stdin and the exit code in the status callback', async () => {
    // A container that stays up for the exec session to reach; the test stops it.
    const { containerId } = await fx.runContainer('cn-exec', ['sh', '-c', 'sleep 3600']);
    const { url } = await fx.call<{ url: string }>('Exec', { container_id: containerId, cmd: ['sh', '-c', 'read x; echo "out $x"; echo err >&2; exit 3'], stdin: true, stdout: true, stderr: true });
    const stdout = new Collect();
    const stderr = new Collect();
    const stdin = new PassThrough();
    const status = new Promise<V1Status>((resolve) => {
      void new Exec(kc, handlerFor(() => url)).exec('default', 'pod', 'c', ['ignored'], stdout, stderr, stdin, false, resolve);
    });
    stdin.end('hi\n');
    const done = await status;
    expect(stdout.text).toBe('out hi\n');
    expect(stderr.text).toBe('err\n');
    expect(done.status).toBe('Failure');
    expect(done.details?.causes?.[0]).toEqual({ reason: 'ExitCode', message: '3' });
  });

  it('Attach: the container\'s output', async () => {
    // A line each 0.1 s: the container's pace, so there is output from whenever attach joins.
    const { containerId } = await fx.runContainer('cn-attach', ['sh', '-c', 'while :; do echo alive; sleep 0.1; done']);
    const { url } = await fx.call<{ url: string }>('Attach', { container_id: containerId, stdout: true, stderr: true });
    const stdout = new Collect();
    const ws = await new Attach(kc, handlerFor(() => url)).attach('default', 'pod', 'c', stdout, new Collect(), null, false);
    await expect.poll(() => stdout.text, { timeout: 5000 }).toMatch(/^(alive\n){3}/);
    ws.close();
  });

  it('PortForward: 10 MiB from a server on the pod\'s (host) network, intact', async () => {
    const payload = createHash('sha512').update('seed').digest();
    const total = 10 * 1024 * 1024;
    const server: Server = createServer((socket) => {
      let sent = 0;
      const pump = (): void => {
        while (sent < total) {
          sent += payload.length;
          if (!socket.write(payload)) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      // The pod declares the port: the embedded runtime forwards to no other.
      const { sandboxId } = await fx.runContainer('cn-pf', ['sh', '-c', 'sleep 3600'], {}, { port_mappings: [{ protocol: 'TCP', container_port: port, host_port: 0, host_ip: '' }] });
      const { url } = await fx.call<{ url: string }>('PortForward', { pod_sandbox_id: sandboxId });
      const output = new Collect();
      const ws = await new PortForward(kc, false, handlerFor(() => url)).portForward('default', 'pod', [port], output, new Collect(), new PassThrough()) as WebSocket;
      await new Promise((r) => ws.once('close', r));
      const received = Buffer.concat(output.chunks);
      expect(received.length).toBe(total);
      const expected = createHash('sha256');
      for (let i = 0; i < total; i += payload.length) expected.update(payload);
      expect(createHash('sha256').update(received).digest('hex')).toBe(expected.digest('hex'));
    } finally {
      server.close();
    }
  });
});
