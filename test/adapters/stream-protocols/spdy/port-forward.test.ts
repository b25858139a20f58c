/**
 * port-forward over SPDY, driven by the test SPDY client against TCP servers on 127.0.0.1 standing in
 * for the pod: pairs by requestID, many at once, 100 MiB each way with checksums and flat memory,
 * dial failures on the error stream, Go's refusals and pair timeout, and resets and hang-ups that
 * free the pod's connections.
 */
import { createHash } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { PortDialer } from '../../../../src/adapters/stream-protocols/sessions.js';
import { serveSpdyPortForward } from '../../../../src/adapters/stream-protocols/spdy/port-forward.js';
import type { SpdyServeLimits } from '../../../../src/adapters/stream-protocols/spdy/serve-limits.js';
import { dialSpdy, type SpdyClient } from '../../../support/spdy-client.js';
import { collect, eventually } from './collect.js';
import { startUpgradeServer, type UpgradeServer } from './upgrade-server.js';

let server: UpgradeServer | undefined;
const pods: Server[] = [];
const clients: SpdyClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy();
  await server?.close();
  server = undefined;
  for (const p of pods.splice(0)) await new Promise((r) => p.close(r));
});

/** A pod port: `handle` gets each connection; the live ones are listed. */
async function podPort(handle: (conn: Socket) => void): Promise<{ port: number; open: Set<Socket> }> {
  const open = new Set<Socket>();
  const pod = createServer((conn) => {
    open.add(conn);
    conn.once('close', () => open.delete(conn));
    conn.on('error', () => undefined);
    handle(conn);
  });
  await new Promise<void>((r) => pod.listen(0, '127.0.0.1', r));
  pods.push(pod);
  return { port: (pod.address() as AddressInfo).port, open };
}

// Half-open allowed, as a runtime's dialer must: the pod may finish sending while the client still sends.
const dialLocal: PortDialer = (port) => new Promise((resolve, reject) => {
  const conn = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  conn.once('connect', () => resolve(conn));
  conn.once('error', (e) => reject(new Error(`error forwarding port ${port} to pod web, uid 1: ${e.message}`)));
});

async function forwardingClient(limits?: SpdyServeLimits): Promise<SpdyClient> {
  server = await startUpgradeServer((req, socket, head) => serveSpdyPortForward(req, socket, head, dialLocal, limits));
  const { answer, client } = await dialSpdy({ port: server.port, protocols: ['portforward.k8s.io'] });
  expect(answer.headers['x-stream-protocol-version']).toEqual(['portforward.k8s.io']);
  clients.push(client!);
  return client!;
}

function pair(c: SpdyClient, port: number, requestId: string) {
  const error = c.openStream({ streamType: 'error', port: String(port), requestID: requestId });
  const data = c.openStream({ streamType: 'data', port: String(port), requestID: requestId });
  return { error, data };
}

interface InFlight { made: number; seen: number; peak: number }

/** `total` bytes of a repeatable pattern, made as they are read (counted in `flight` if given). */
function pattern(total: number, seed: number, flight?: InFlight): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(64 * 1024, total - sent);
      const chunk = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i += 4) chunk.writeUInt32LE(((sent + i) * 2654435761 + seed) >>> 0, i);
      sent += n;
      if (flight) {
        flight.made += n;
        flight.peak = Math.max(flight.peak, flight.made - flight.seen);
      }
      this.push(chunk);
    },
  });
}

function digest(stream: Readable): Promise<{ sha: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let bytes = 0;
    stream.on('data', (c: Buffer) => {
      hash.update(c);
      bytes += c.length;
    });
    stream.once('end', () => resolve({ sha: hash.digest('hex'), bytes }));
    stream.once('error', reject);
  });
}

/** Like digest, but a slow reader: it stops for 2 ms after every 256 KiB, so writers must wait for it. */
function slowDigest(stream: Readable, flight: InFlight): Promise<{ sha: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let bytes = 0;
    let sincePause = 0;
    stream.on('data', (c: Buffer) => {
      hash.update(c);
      bytes += c.length;
      flight.seen += c.length;
      sincePause += c.length;
      if (sincePause >= 256 * 1024) {
        sincePause = 0;
        stream.pause();
        // A slow reader: paused, then resumed a moment later, so the sender meets back-pressure.
        setTimeout(() => stream.resume(), 2);
      }
    });
    stream.once('end', () => resolve({ sha: hash.digest('hex'), bytes }));
    stream.once('error', reject);
  });
}

describe('portforward over SPDY', () => {
  it('refuses a client without portforward.k8s.io with Go’s 403', async () => {
    server = await startUpgradeServer((req, socket, head) => serveSpdyPortForward(req, socket, head, dialLocal));
    const { answer } = await dialSpdy({ port: server.port, protocols: ['v4.channel.k8s.io'] });
    expect(answer.status).toBe(403);
    expect(answer.headers['x-accepted-stream-protocol-versions']).toEqual(['portforward.k8s.io']);
  });

  it('forwards 40 connections at once, each its own bytes back, then ends both streams', async () => {
    const { port } = await podPort((conn) => conn.pipe(conn));
    const c = await forwardingClient();
    await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const { error, data } = pair(c, port, String(i));
      const errorText = collect(error);
      const echoed = collect(data);
      const payload = Buffer.from(`connection ${i} `.repeat(1000 + i));
      data.end(payload);
      expect((await echoed).equals(payload)).toBe(true);
      expect((await errorText).length).toBe(0);
    }));
  });

  it('carries 100 MiB each way intact (sha256) to slow readers, holding only a few MiB in flight', async () => {
    const TOTAL = 100 * 1024 * 1024;
    const up = { made: 0, seen: 0, peak: 0 };
    const down = { made: 0, seen: 0, peak: 0 };
    let atPod: Promise<{ sha: string; bytes: number }> | undefined;
    const { port } = await podPort((conn) => {
      atPod = slowDigest(conn, up);
      pattern(TOTAL, 2, down).pipe(conn);
    });
    const c = await forwardingClient();
    const { error, data } = pair(c, port, '0');
    error.resume();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = 0;
    // A sampler of RSS while the transfer runs, not a wait: the test waits for the digest.
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss - rssBefore)), 20);
    const atClient = slowDigest(data, down);
    pattern(TOTAL, 1, up).pipe(data);
    const got = await atClient;
    await eventually('the pod to read everything', () => atPod !== undefined);
    const gotAtPod = await atPod!;
    clearInterval(sampler);
    expect(got).toEqual(await digest(pattern(TOTAL, 2)));
    expect(gotAtPod).toEqual(await digest(pattern(TOTAL, 1)));
    // Made but not yet read, at worst: stream buffers plus the kernel's socket buffers, never the transfer.
    expect(up.peak).toBeLessThan(24 * 1024 * 1024);
    expect(down.peak).toBeLessThan(24 * 1024 * 1024);
    expect(rssPeak).toBeLessThan(150 * 1024 * 1024);
  }, 120_000);

  it('writes a dial failure on the error stream and ends the data stream', async () => {
    const closed = await podPort(() => undefined);
    const deadPort = closed.port;
    await new Promise((r) => pods.pop()!.close(r));
    const c = await forwardingClient();
    const { error, data } = pair(c, deadPort, '7');
    const [text, carried] = await Promise.all([collect(error), collect(data)]);
    expect(text.toString()).toMatch(new RegExp(`^error forwarding port ${deadPort} to pod web, uid 1: connect ECONNREFUSED`));
    expect(carried.length).toBe(0);
  });

  it('refuses streams with a bad port or type, as Go does', async () => {
    const c = await forwardingClient();
    for (const headers of [
      { streamType: 'data', requestID: '1' } as Record<string, string>,
      { streamType: 'data', port: '0', requestID: '1' },
      { streamType: 'data', port: '70000', requestID: '1' },
      { streamType: 'data', port: 'http', requestID: '1' },
      { streamType: 'stdin', port: '80', requestID: '1' },
    ]) expect(await c.openStream(headers).replied).toEqual({ fin: true });
  });

  it('drops a pair whose other half never comes, saying so on its error stream', async () => {
    const c = await forwardingClient({ streamCreationTimeoutMs: 150 });
    const error = c.openStream({ streamType: 'error', port: '80', requestID: 'lonely' });
    expect((await collect(error)).toString()).toBe('(request=lonely) timed out waiting for streams');
  });

  it('pairs by stream id when the client sends no requestID (data id = error id + 2)', async () => {
    const { port } = await podPort((conn) => conn.end('hi from the pod'));
    const c = await forwardingClient();
    const error = c.openStream({ streamType: 'error', port: String(port) });
    const data = c.openStream({ streamType: 'data', port: String(port) });
    error.resume();
    data.end();
    expect((await collect(data)).toString()).toBe('hi from the pod');
  });

  it('closes the pod connection when the client resets the data stream, and all of them when the client hangs up', async () => {
    const pod = await podPort((conn) => conn.resume());
    const c = await forwardingClient();
    const first = pair(c, pod.port, 'a');
    first.error.resume();
    first.data.write('x');
    await eventually('the first connection', () => pod.open.size === 1);
    first.data.reset();
    await eventually('the reset to close it', () => pod.open.size === 0);

    for (const id of ['b', 'c', 'd']) {
      const p = pair(c, pod.port, id);
      p.error.resume();
      p.data.resume();
      p.data.write('y');
    }
    await eventually('three connections', () => pod.open.size === 3);
    c.socket.destroy();
    await eventually('the hang-up to close them all', () => pod.open.size === 0);
  });
});
