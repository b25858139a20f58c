/**
 * exec/attach over SPDY, driven by the test SPDY client: version negotiation and Go's refusals, the
 * streams an exec asks for, stdin/stdout/stderr with half-close, resize, the v4 Status (and the plain
 * text of older versions), GOAWAY only after the verdict, and the timeouts that end a session.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitStatus } from '../../../../src/adapters/stream-protocols/exit-status.js';
import type { RemoteCommandOptions, RemoteCommandSession, TerminalSize } from '../../../../src/adapters/stream-protocols/sessions.js';
import { serveSpdyRemoteCommand } from '../../../../src/adapters/stream-protocols/spdy/remote-command.js';
import type { SpdyServeLimits } from '../../../../src/adapters/stream-protocols/spdy/serve-limits.js';
import { runOnHost } from '../../../support/host-command-runner.js';
import { dialSpdy, type SpdyClient } from '../../../support/spdy-client.js';
import { collect, eventually } from './collect.js';
import { startUpgradeServer, type UpgradeServer } from './upgrade-server.js';

const ALL: RemoteCommandOptions = { stdin: true, stdout: true, stderr: true, tty: false };
let server: UpgradeServer | undefined;
const clients: SpdyClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.socket.destroy();
  await server?.close();
  server = undefined;
});

async function serve(options: RemoteCommandOptions, run: (s: RemoteCommandSession) => void, limits?: SpdyServeLimits): Promise<number> {
  server = await startUpgradeServer((req, socket, head) => serveSpdyRemoteCommand(req, socket, head, options, run, limits));
  return server.port;
}

async function client(port: number, protocols = ['v4.channel.k8s.io']): Promise<SpdyClient> {
  const { answer, client: c } = await dialSpdy({ port, protocols });
  expect(answer.status).toBe(101);
  clients.push(c!);
  return c!;
}

describe('remotecommand over SPDY: negotiation', () => {
  it('answers 101 with the first of the client’s versions the server speaks, in the client’s order', async () => {
    const port = await serve(ALL, () => undefined);
    const { answer, client: c } = await dialSpdy({ port, protocols: ['v9.channel.k8s.io', 'v3.channel.k8s.io', 'v4.channel.k8s.io'] });
    clients.push(c!);
    expect(answer.status).toBe(101);
    expect(answer.headers).toMatchObject({ connection: ['Upgrade'], upgrade: ['SPDY/3.1'], 'x-stream-protocol-version': ['v3.channel.k8s.io'] });
  });

  it('refuses with Go’s 403 when no version is shared, 400 when none is offered or SPDY is not asked for', async () => {
    const port = await serve(ALL, () => undefined);
    const none = await dialSpdy({ port, protocols: ['v5.channel.k8s.io, bogus'] });
    expect(none.answer.status).toBe(403);
    expect(none.answer.body).toBe('unable to upgrade: unable to negotiate protocol: client supports [v5.channel.k8s.io bogus], '
      + 'server accepts [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]\n');
    expect(none.answer.headers['x-accepted-stream-protocol-versions']).toEqual(['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io']);
    const missing = await dialSpdy({ port, protocols: [] });
    expect(missing.answer).toMatchObject({ status: 400, body: 'unable to upgrade: X-Stream-Protocol-Version is required\n' });
    const notSpdy = await dialSpdy({ port, protocols: ['v4.channel.k8s.io'], upgrade: false, headers: { Connection: 'Upgrade', Upgrade: 'websocket' } });
    expect(notSpdy.answer.status).toBe(400);
    expect(notSpdy.answer.body).toMatch(/^unable to upgrade: missing upgrade headers in request: http\.Header\{.*"Upgrade":\[\]string\{"websocket"\}/);
  });
});

describe('remotecommand over SPDY: a session', () => {
  it('runs a command with stdin, stdout and stderr apart, then the v4 Status, then GOAWAY', async () => {
    const command = ['sh', '-c', 'cat; echo to-err >&2; exit 3'];
    const port = await serve(ALL, (s) => runOnHost(command, s));
    const c = await client(port);
    const error = c.openStream({ streamType: 'error' });
    const stdin = c.openStream({ streamType: 'stdin' });
    const stdout = c.openStream({ streamType: 'stdout' });
    const stderr = c.openStream({ streamType: 'stderr' });
    for (const s of [error, stdin, stdout, stderr]) expect(await s.replied).toEqual({ fin: false });
    const out = collect(stdout);
    const err = collect(stderr);
    const status = collect(error);
    stdin.write('hello ');
    stdin.end('world');
    expect((await out).toString()).toBe('hello world');
    expect((await err).toString()).toBe('to-err\n');
    expect(JSON.parse((await status).toString())).toEqual(exitStatus({ kind: 'exited', exitCode: 3, command }));
    await eventually('GOAWAY', () => c.goAway !== undefined);
    expect(c.goAway).toEqual({ lastGoodStreamId: 7, status: 0 });
    // GOAWAY came after the error stream's FIN, the last data frame of the session.
    await c.closed;
  });

  it('serves 20 exec sessions at once, each its own bytes and exit code', async () => {
    let n = 0;
    // Each connection's command exits with the connection's number.
    server = await startUpgradeServer((req, socket, head) => {
      const code = n++;
      serveSpdyRemoteCommand(req, socket, head, { stdin: true, stdout: true, stderr: false, tty: false }, (s) => runOnHost(['sh', '-c', `cat; exit ${code}`], s));
    });
    const results = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const c = await client(server!.port);
      const status = collect(c.openStream({ streamType: 'error' }));
      const stdin = c.openStream({ streamType: 'stdin' });
      const stdout = collect(c.openStream({ streamType: 'stdout' }));
      const payload = Buffer.alloc(256 * 1024 + i, i);
      stdin.end(payload);
      const out = await stdout;
      const verdict = JSON.parse((await status).toString()) as { status: string; details?: { causes: Array<{ message: string }> } };
      return { same: out.equals(payload), code: verdict.status === 'Success' ? 0 : Number(verdict.details!.causes[0]!.message) };
    }));
    expect(results.every((r) => r.same)).toBe(true);
    expect(results.map((r) => r.code).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('sends {"metadata":{},"status":"Success"} for exit 0, and the Failure with the ExitCode cause otherwise', async () => {
    expect(JSON.stringify(exitStatus({ kind: 'exited', exitCode: 0, command: ['true'] }))).toBe('{"metadata":{},"status":"Success"}');
    expect(JSON.stringify(exitStatus({ kind: 'exited', exitCode: 2, command: ['sh', '-c', 'exit 2'] }))).toBe(
      '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 2], exit code 2",'
      + '"reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"2"}]}}');
    expect(exitStatus({ kind: 'failed', message: 'no such container' })).toMatchObject({ status: 'Failure', reason: 'InternalError', code: 500 });
  });

  it('speaks plain error text on v3 and nothing at all on success', async () => {
    const port = await serve({ stdin: false, stdout: true, stderr: false, tty: false }, (s) => runOnHost(['sh', '-c', 'echo x; exit 4'], s));
    const c = await client(port, ['v3.channel.k8s.io']);
    const error = collect(c.openStream({ streamType: 'error' }));
    const stdout = collect(c.openStream({ streamType: 'stdout' }));
    expect((await stdout).toString()).toBe('x\n');
    expect((await error).toString()).toBe('command terminated with non-zero exit code: error executing command [sh -c echo x; exit 4], exit code 4');
    await server!.close();
    const port2 = await serve({ stdin: false, stdout: true, stderr: false, tty: false }, (s) => runOnHost(['true'], s));
    const c2 = await client(port2, ['v2.channel.k8s.io']);
    const error2 = c2.openStream({ streamType: 'error' });
    c2.openStream({ streamType: 'stdout' }).resume();
    expect((await collect(error2)).length).toBe(0);
  });

  it('under a TTY: no stderr stream, sizes from the resize stream in order (also those sent before anyone listened)', async () => {
    const sizes: TerminalSize[] = [];
    let session: RemoteCommandSession | undefined;
    const port = await serve({ stdin: true, stdout: true, stderr: true, tty: true }, (s) => (session = s));
    const c = await client(port);
    const error = c.openStream({ streamType: 'error' });
    const stdin = c.openStream({ streamType: 'stdin' });
    const stdout = c.openStream({ streamType: 'stdout' });
    const resize = c.openStream({ streamType: 'resize' });
    resize.write('{"Width":80,"Height":24}\n{"Wid');
    await eventually('the session', () => session !== undefined);
    expect(session!.tty).toBe(true);
    expect(session!.stderr).toBeNull();
    // The first, partial resize line is read before anyone listens: it must be kept, not lost. The
    // server reads frames in order, so once it echoes a PING sent after them it has read them.
    await c.ping(1);
    session!.onResize((size) => sizes.push(size));
    resize.write('th":120,"Height":40}{"Width":1,"Height":2}');
    await eventually('three sizes', () => sizes.length === 3);
    expect(sizes).toEqual([{ width: 80, height: 24 }, { width: 120, height: 40 }, { width: 1, height: 2 }]);
    const out = collect(stdout);
    const status = collect(error);
    session!.stdout!.write('prompt$ ');
    session!.finish({ kind: 'exited', exitCode: 0, command: ['sh'] });
    expect((await out).toString()).toBe('prompt$ ');
    expect((await status).toString()).toBe('{"metadata":{},"status":"Success"}');
    stdin.end();
  });

  it('finishes promptly even when the runtime never read the stdin the client keeps sending', async () => {
    let session: RemoteCommandSession | undefined;
    const port = await serve({ stdin: true, stdout: true, stderr: false, tty: false }, (s) => (session = s), { closeGraceMs: 60_000 });
    const c = await client(port);
    const status = collect(c.openStream({ streamType: 'error' }));
    const stdin = c.openStream({ streamType: 'stdin' });
    const stdout = collect(c.openStream({ streamType: 'stdout' }));
    await eventually('the session', () => session !== undefined);
    // Far more than any buffer: the server stops reading the socket until someone reads stdin.
    const chunk = Buffer.alloc(256 * 1024, 7);
    const pump = setInterval(() => stdin.write(chunk), 5);
    // Stdin is pumped unread until the back-pressure reaches the client: the server's stdin buffer is
    // full (so it stopped reading the socket) and the client's writes queue up behind its socket.
    const stdinOnServer = session!.stdin!;
    await eventually('the back-pressure to reach the client',
      () => stdinOnServer.readableLength >= stdinOnServer.readableHighWaterMark && stdin.writableLength >= 4 * chunk.length);
    session!.stdout!.write('bye');
    session!.finish({ kind: 'exited', exitCode: 1, command: ['x'] });
    try {
      expect((await stdout).toString()).toBe('bye');
      expect(JSON.parse((await status).toString())).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode' });
      const started = Date.now();
      clearInterval(pump);
      c.socket.end();
      await c.closed;
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      clearInterval(pump);
    }
  });

  it('refuses a stream nobody asked for and one of a type already open', async () => {
    const port = await serve({ stdin: false, stdout: true, stderr: false, tty: false }, () => undefined);
    const c = await client(port);
    expect(await c.openStream({ streamType: 'stdin' }).replied).toEqual({ fin: true });
    expect(await c.openStream({ streamType: 'error' }).replied).toEqual({ fin: false });
    expect(await c.openStream({ streamType: 'error' }).replied).toEqual({ fin: true });
    expect(await c.openStream({ other: 'x' }).replied).toEqual({ fin: true });
  });

  it('gives up when the client does not open its streams in time: no run, GOAWAY, hang-up', async () => {
    let ran = false;
    const port = await serve(ALL, () => (ran = true), { streamCreationTimeoutMs: 150 });
    const c = await client(port);
    c.openStream({ streamType: 'error' });
    await c.closed;
    expect(c.goAway?.status).toBe(0);
    expect(ran).toBe(false);
  });

  it('aborts `closed` when the client goes away before finish, and again on the idle timeout', async () => {
    let session: RemoteCommandSession | undefined;
    const port = await serve({ stdin: true, stdout: true, stderr: false, tty: false }, (s) => (session = s), { idleTimeoutMs: 300 });
    const c = await client(port);
    c.openStream({ streamType: 'error' });
    c.openStream({ streamType: 'stdin' });
    c.openStream({ streamType: 'stdout' });
    await eventually('the session', () => session !== undefined);
    expect(session!.closed.aborted).toBe(false);
    c.socket.destroy();
    await eventually('closed to abort', () => session!.closed.aborted);

    session = undefined;
    const idle = await client(port);
    const error = idle.openStream({ streamType: 'error' });
    idle.openStream({ streamType: 'stdin' });
    idle.openStream({ streamType: 'stdout' });
    await eventually('the second session', () => session !== undefined);
    const started = Date.now();
    await eventually('closed to abort on idleness', () => session!.closed.aborted, 3000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    // Every stream was reset (RST_STREAM CANCEL), then GOAWAY.
    expect(error.resetStatus).toBe(5);
    expect(idle.goAway).toBeDefined();
  });

  it('echoes a PING and keeps the session alive while frames flow', async () => {
    // Only timers are faked: the sockets stay real, and the session's idle timer runs on the test's time.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const port = await serve(ALL, () => undefined, { idleTimeoutMs: 300 });
      const c = await client(port);
      // Six pings 100 ms apart: twice the idle timeout in all, never that long without a frame.
      for (let i = 0; i < 6; i++) {
        await Promise.race([c.ping(2 * i + 1), c.closed]);
        expect(c.goAway).toBeUndefined();
        await vi.advanceTimersByTimeAsync(100);
      }
      expect(c.socket.destroyed).toBe(false);
      // And the timer is live: a silence of its length ends the session.
      await vi.advanceTimersByTimeAsync(300);
      await c.closed;
      expect(c.goAway).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
