/**
 * PortForward through the embedded runtime's streaming server over WebSocket: the pod's port (one
 * it declares) is the host's loopback port (host network). 100 MiB each way with checksums, through a real TCP server
 * started by the test, with the client reading slowly at first (backpressure); Go's framing (port
 * bytes first on both channels) and error text.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChannels } from './channel-client.js';
import { startRuntimeFixture, type RuntimeFixture } from './runtime-fixture.js';

const MiB = 1024 * 1024;
let fx: RuntimeFixture;
let sandboxId: string;
let server: Server;
let port: number;
/** A port nothing listens on (a server's, closed). */
let closedPort: number;
/** What the server received on its last upload connection, by sha256. */
let uploads: Array<Promise<{ bytes: number; sha256: string }>> = [];
/** MiB the download connection has handed to its socket so far. */
let downloadSent = 0;

/** A deterministic pseudo-random block, so the checksums mean something. */
function block(seed: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    out.writeUInt32LE(x >>> 0, i);
  }
  return out;
}
const CHUNK = block(7, MiB);

beforeAll(async () => {
  fx = await startRuntimeFixture();
  // "download": sends 100 MiB and closes; "upload": hashes what it gets until the client's end.
  server = createServer((socket) => {
    socket.once('data', (first: Buffer) => {
      const command = first.subarray(0, 8).toString();
      if (command === 'download') {
        downloadSent = 0;
        const pump = (): void => {
          while (downloadSent < 100) {
            downloadSent++;
            if (!socket.write(CHUNK)) return void socket.once('drain', pump);
          }
          socket.end();
        };
        pump();
        return;
      }
      const hash = createHash('sha256');
      let bytes = first.length - 8;
      hash.update(first.subarray(8));
      uploads.push(new Promise((resolve) => {
        socket.on('data', (c: Buffer) => { bytes += c.length; hash.update(c); });
        socket.on('end', () => {
          const sha256 = hash.digest('hex');
          socket.end(`${bytes} ${sha256}`);
          resolve({ bytes, sha256 });
        });
      }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  closedPort = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  // The pod declares both ports: the embedded runtime forwards to no other.
  const declared = [port, closedPort].map((containerPort) => ({ protocol: 'TCP' as const, container_port: containerPort, host_port: 0, host_ip: '' }));
  ({ sandboxId } = await fx.runContainer('pf', ['sh', '-c', 'sleep 3600'], {}, { port_mappings: declared })); // idles: the forward is to its netns, the test waits on the stream
});
afterAll(async () => {
  server?.close();
  await fx?.stop();
});

async function forwardUrl(ports: number[]): Promise<string> {
  return (await fx.call<{ url: string }>('PortForward', { pod_sandbox_id: sandboxId, port: ports })).url;
}

describe('port forward over WebSocket', () => {
  it('downloads 100 MiB intact, the port as two little-endian bytes first on both channels', async () => {
    const client = await connectChannels(await forwardUrl([port]), ['v4.channel.k8s.io']);
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    expect(client.messages.slice(0, 2)).toEqual([[0, portBytes], [1, portBytes]]);
    // Read slowly at first: the server must hold back, not buffer the whole transfer.
    client.ws.pause();
    client.send(0, 'download');
    // Kept: no event says "nothing more will come". A paused reader for a second: long enough for an
    // unbounded server to have sent far more.
    await new Promise((r) => setTimeout(r, 1000)); // a window for what must not happen; slower only sends less
    // Socket buffers on both hops hold a few MiB; anything near 100 would mean we buffered it all.
    expect(downloadSent).toBeLessThan(32);
    client.ws.resume();
    expect(await client.closed).toBe(1000);
    const data = client.bytes(0).subarray(2);
    expect(data.length).toBe(100 * MiB);
    const expected = createHash('sha256');
    for (let i = 0; i < 100; i++) expected.update(CHUNK);
    expect(createHash('sha256').update(data).digest('hex')).toBe(expected.digest('hex'));
    expect(client.bytes(1).subarray(2).length).toBe(0);
  }, 60_000);

  it('uploads 100 MiB intact', async () => {
    uploads = [];
    const client = await connectChannels(await forwardUrl([port]), ['v4.channel.k8s.io']);
    client.send(0, 'upload  ');
    const expected = createHash('sha256');
    for (let i = 0; i < 100; i++) {
      const sent = new Promise<void>((done) => client.send(0, CHUNK, done));
      expected.update(CHUNK);
      // Back-pressure: past 8 MiB unsent, wait until this chunk (and so all before it) left.
      if (client.ws.bufferedAmount > 8 * MiB) await sent;
    }
    // These protocols have no half-close: closing the WebSocket ends the forwarded connection,
    // after what was sent before it.
    client.ws.close();
    expect(uploads).toHaveLength(1);
    expect(await uploads[0]).toEqual({ bytes: 100 * MiB, sha256: expected.digest('hex') });
  }, 90_000);

  it('reports a closed port on the error channel, in Go\'s words', async () => {
    const closed = closedPort;
    const client = await connectChannels(await forwardUrl([closed]), ['v4.base64.channel.k8s.io']);
    await client.closed;
    const text = client.bytes(1).subarray(2).toString();
    expect(text).toContain(`error forwarding port ${closed} to pod ${sandboxId}, uid : failed to connect to localhost:${closed}`);
    expect(text).toContain('connection refused');
  });

  it('takes the ports from ?port= when the CRI request named none, and refuses a bad one', async () => {
    const client = await connectChannels(`${await forwardUrl([])}?port=${port}`, []);
    expect(client.protocol).toBe('');
    expect(client.messages[0]?.[1].readUInt16LE(0)).toBe(port);
    client.ws.close();
    await expect(connectChannels(`${await forwardUrl([])}?port=0`, ['v4.channel.k8s.io'])).rejects.toThrow(/HTTP 400: port "0" must be > 0/);
    await expect(connectChannels(await forwardUrl([]), ['v4.channel.k8s.io'])).rejects.toThrow(/query parameter "port" is required/);
  });
});
