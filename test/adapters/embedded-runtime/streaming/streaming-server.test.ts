/**
 * The streaming server's HTTP face: only upgrades to the URLs it handed out; 404 for tokens it does
 * not hold, 400 for a plain request or an upgrade no transport speaks (the token is spent either way,
 * as in Go), and close() ends open sessions.
 */
import { request } from 'node:http';
import { setTimeout as realDelay } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startStreamingServer, type StreamingServer } from '../../../../src/adapters/embedded-runtime/streaming/streaming-server.js';
import { connectChannels } from './channel-client.js';

let server: StreamingServer | undefined;
afterEach(async () => server?.close());

async function start(): Promise<StreamingServer> {
  server = await startStreamingServer({
    handlers: {
      // A session that echoes stdin to stdout and never finishes on its own.
      exec: (_request, session) => session.stdin?.pipe(session.stdout!),
      attach: () => undefined,
      dialer: () => () => Promise.reject(new Error('no ports here')),
    },
  });
  return server;
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

const EXEC = { kind: 'exec' as const, containerId: 'c', cmd: ['cat'], options: { stdin: true, stdout: true, stderr: false, tty: false } };

describe('streaming server', () => {
  it('listens on 127.0.0.1 and answers 404 for an unknown token or path', async () => {
    const s = await start();
    expect(s.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await get(`${s.baseUrl}/exec/nothere`, { Connection: 'Upgrade', Upgrade: 'websocket' })).toEqual({ status: 404, body: '404 page not found\n' });
    expect((await get(`${s.baseUrl}/somewhere`)).status).toBe(404);
  });

  it('answers 400 to a plain GET and to an unknown upgrade, and spends the token', async () => {
    const s = await start();
    const plain = s.urlFor(EXEC);
    expect(await get(plain)).toEqual({ status: 400, body: 'Upgrade request required\n' });
    expect((await get(plain)).status).toBe(404);
    const h2c = await get(s.urlFor(EXEC), { Connection: 'Upgrade', Upgrade: 'h2c' });
    expect(h2c.status).toBe(400);
    expect(h2c.body).toMatch(/unsupported upgrade "h2c": this server speaks websocket/);
  });

  it('a token of one kind does not serve another', async () => {
    const s = await start();
    const url = s.urlFor(EXEC).replace('/exec/', '/attach/');
    expect((await get(url, { Connection: 'Upgrade', Upgrade: 'websocket' })).status).toBe(404);
  });

  it('close() ends the sessions still open', async () => {
    const s = await start();
    const client = await connectChannels(s.urlFor(EXEC), ['v5.channel.k8s.io']);
    client.send(0, 'echo');
    await expect.poll(() => client.text(1)).toBe('echo');
    await s.close();
    server = undefined;
    expect(await client.closed).not.toBe(1000);
  });
});

describe('streaming server limits', () => {
  it('closes a session with no traffic for the idle timeout, and not one that keeps talking', async () => {
    // Only timers are faked: the sockets stay real, and the idle timers run on the test's time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      server = await startStreamingServer({
        limits: { idleTimeoutMs: 300 },
        handlers: { exec: (_r, session) => session.stdin?.pipe(session.stdout!), attach: () => undefined, dialer: () => () => Promise.reject(new Error('none')) },
      });
      const idle = await connectChannels(server.urlFor(EXEC), ['v5.channel.k8s.io']);
      const busy = await connectChannels(server.urlFor(EXEC), ['v5.channel.k8s.io']);
      let idleClosed = false;
      void idle.closed.then(() => (idleClosed = true));
      // The busy one talks every 100 ms for 700 ms, past the idle one's end at 300 ms.
      for (let elapsed = 0; elapsed < 700; elapsed += 100) {
        busy.send(0, '.');
        await Promise.race([busy.roundTrip(), busy.closed]);
        expect(busy.ws.readyState).toBe(busy.ws.OPEN);
        if (elapsed < 300) expect(idleClosed).toBe(false);
        // Its hang-up is on its way: a deadline on the real clock (vi.waitFor would move the fake one).
        else await Promise.race([idle.closed, realDelay(2_000, undefined, { ref: false })]).then(() => expect(idleClosed).toBe(true)); // a deadline
        await vi.advanceTimersByTimeAsync(100);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
