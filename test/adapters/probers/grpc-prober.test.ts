import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { grpcProbe } from '../../../src/adapters/probers/grpc-prober.js';
import { probeUserAgent } from '../../../src/domain/probe/target.js';
import { until } from '../../support/daemon.js';
import { builtModule, runScriptInChild } from '../../support/script-in-child.js';
import {
  healthService, startGrpcServer, type CheckHandler, type SeenCheck, type StatusAnswer,
} from '../../support/grpc-health-server.js';

const stops: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function startServer(check: CheckHandler | undefined): Promise<number> {
  const server = await startGrpcServer(check);
  stops.push(server.stop);
  return server.port;
}

async function startHealthServer(statuses: Record<string, StatusAnswer>, seen: SeenCheck[] = []): Promise<number> {
  return startServer(healthService(new Map(Object.entries(statuses)), seen));
}

/** A TCP listener on 127.0.0.1 that accepts and then says nothing (no HTTP/2 settings, ever). */
async function startSilentListener(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as AddressInfo).port;
}

/** A TCP relay on 127.0.0.1 in front of `port` that counts the connections open through it. */
async function startCountingRelay(port: number): Promise<{ port: number; open: () => number; opened: () => number }> {
  let open = 0;
  let opened = 0;
  const server = net.createServer((client) => {
    open++;
    opened++;
    const upstream = net.connect({ host: '127.0.0.1', port });
    client.pipe(upstream).pipe(client);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('close', () => { open--; end(); });
    client.on('error', end);
    upstream.on('error', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { port: (server.address() as AddressInfo).port, open: () => open, opened: () => opened };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The timeout of a probe whose server answers: generous for a loaded 2-core machine, where the test's
 * server shares the starved process (1 s failed there). The timeout cases give Go's default, 1 s.
 */
const ANSWERED_TIMEOUT_SECONDS = 30;
const TIMEOUT_SECONDS = 1;

const probe = (port: number, service = '', timeoutSeconds = ANSWERED_TIMEOUT_SECONDS) =>
  grpcProbe({ kind: 'grpc', host: '127.0.0.1', port, service, timeoutSeconds });

describe('grpcProbe', () => {
  it('succeeds when the server answers SERVING, asking about the whole server with the kube-probe user agent', async () => {
    const seen: SeenCheck[] = [];
    const port = await startHealthServer({ '': 'SERVING' }, seen);
    expect(await probe(port)).toEqual({ result: 'success', output: 'service healthy' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.service).toBe('');
    // Go: grpc.WithUserAgent("kube-probe/x.y"), ahead of the library's own token.
    expect(seen[0]?.userAgent).toMatch(new RegExp(`^${probeUserAgent().replace('.', '\\.')} grpc-node-js/`));
  });

  it('asks about the probe\'s service and judges that service alone', async () => {
    const seen: SeenCheck[] = [];
    const port = await startHealthServer({ '': 'NOT_SERVING', 'pkg.Orders': 'SERVING' }, seen);
    expect((await probe(port, 'pkg.Orders')).result).toBe('success');
    expect(seen.map((s) => s.service)).toEqual(['pkg.Orders']);
  });

  it.each<[StatusAnswer, string]>([
    ['NOT_SERVING', 'NOT_SERVING'],
    ['SERVICE_UNKNOWN', 'SERVICE_UNKNOWN'],
    ['omitted', 'UNKNOWN'],
    [7, '7'],
  ])('fails when the server answers %s, naming the status as Go does', async (answer, named) => {
    const port = await startHealthServer({ '': answer });
    expect(await probe(port)).toEqual({ result: 'failure', output: `service unhealthy (responded with "${named}")` });
  });

  it('fails with the RPC status when the server does not know the service (NOT_FOUND)', async () => {
    const port = await startHealthServer({ '': 'SERVING' });
    expect(await probe(port, 'pkg.Unknown')).toEqual({
      result: 'failure',
      output: 'error: health rpc probe failed: rpc error: code = NotFound desc = unknown service',
    });
  });

  it('fails saying so when the server does not implement grpc.health.v1.Health', async () => {
    const port = await startServer(undefined);
    const outcome = await probe(port);
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toMatch(/^error: this server does not implement the grpc health protocol \(grpc\.health\.v1\.Health\): /);
  });

  it('fails once the timeout is up when nothing listens on the port', async () => {
    const port = await closedPort();
    expect(await probe(port, '', TIMEOUT_SECONDS)).toEqual({
      result: 'failure',
      output: `timeout: failed to connect service "127.0.0.1:${port}" within 1s: context deadline exceeded`,
    });
  });

  // Seen on a busy clean-clone run: grpc-js's deadline timer ended the wait while Date.now() was
  // still a millisecond short of the deadline, and the probe said "error" where Go says "timeout".
  it('says timeout when the connect deadline passes, even with Date.now() behind the timers\' clock', async () => {
    const port = await closedPort();
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 5);
    try {
      expect((await probe(port, '', TIMEOUT_SECONDS)).output).toMatch(/^timeout: failed to connect service /);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('fails once the timeout is up when the listener never speaks HTTP/2', async () => {
    const port = await startSilentListener();
    const outcome = await probe(port, '', TIMEOUT_SECONDS);
    expect(outcome.result).toBe('failure');
    expect(outcome.output).toMatch(/^timeout: /);
  });

  it('fails once the timeout is up when the server never answers the call', async () => {
    const port = await startServer(() => {});
    expect(await probe(port, '', TIMEOUT_SECONDS)).toEqual({ result: 'failure', output: 'timeout: health rpc did not complete within 1s' });
  });

  it('opens one connection per attempt and closes it when the attempt ends', async () => {
    const relay = await startCountingRelay(await startHealthServer({ '': 'SERVING', down: 'NOT_SERVING' }));
    expect((await probe(relay.port)).result).toBe('success');
    expect((await probe(relay.port, 'down')).result).toBe('failure');
    expect((await probe(relay.port, 'gone')).result).toBe('failure');
    expect(relay.opened()).toBe(3);
    await until('every probe connection closed', async () => relay.open() === 0, 5_000);
  });

  // The property is the process's, so it is checked on a process of its own: counting this worker's
  // handles also counted the test servers' half of each connection, which close on their own schedule.
  it('leaves no socket or timer behind that would keep the process alive', async () => {
    const servingPort = await startHealthServer({ '': 'SERVING' });
    const silentPort = await startServer(() => {});
    const refused = await closedPort();
    const exit = await probeInChild([[servingPort, ANSWERED_TIMEOUT_SECONDS], [silentPort, TIMEOUT_SECONDS], [refused, TIMEOUT_SECONDS]]);
    expect(exit.results).toEqual(['success', 'failure', 'failure']);
    // The child ends when its event loop is empty; it never calls process.exit.
    expect(exit.code).toBe(0);
  });
});

/**
 * Runs one probe per port, one after another, in a fresh Node process importing the built prober,
 * and waits for that process to end by itself (script-in-child.ts).
 */
async function probeInChild(probes: [port: number, timeoutSeconds: number][]): Promise<{ code: number | null; results: string[] }> {
  const script = `
    const { grpcProbe } = await import(${builtModule('dist/src/adapters/probers/grpc-prober.js')});
    for (const [port, timeoutSeconds] of ${JSON.stringify(probes)}) {
      const { result } = await grpcProbe({ kind: 'grpc', host: '127.0.0.1', port, service: '', timeoutSeconds });
      process.stdout.write(result + '\\n');
    }`;
  const { code, stdout } = await runScriptInChild(script);
  return { code, results: stdout.trim().split('\n') };
}
