/**
 * The two clients the malicious HTTP/2 peers are tried against, behind one face, and what each
 * case measures around them:
 * - over a unix socket, the CRI client's unary gRPC calls (http2-unary-client.ts);
 * - over TLS with ALPN h2, the API client's requests and watches (rest-client.ts over h2-session.ts).
 * A case runs under a meter — the process's peak RSS growth and the event loop's longest delay —
 * and an abort signal that stops the misbehaving server once the case's time is up or its memory
 * bound is passed, so a client that gives in fails its test quickly instead of exhausting the host.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { http2UnaryClient } from '../../src/adapters/cri-grpc/http2-unary-client.js';
import { readKubeconfig } from '../../src/adapters/apiserver/kubeconfig-file.js';
import { RestClient } from '../../src/adapters/apiserver/rest-client.js';
import { writeKubeconfig } from '../apiserver/kubeconfig.js';
import type { TestPki } from '../apiserver/pki.js';
import { headerBlock, headerFrames, startMaliciousH2Server, type MaliciousH2Server, type PeerConnection, type Transport } from './malicious-h2-server.js';

export type Outcome = { ok: true; body: Buffer } | { ok: false; error: Error };

/** One call as each client makes it: a CRI unary call, or an API GET. */
export interface PeerClient {
  call(): Promise<Outcome>;
  /** An API watch (TLS only): its body, which the caller may leave unread. */
  watch(): Promise<Readable>;
  close(): void;
}

/** The method the CRI client calls: any path will do, the server answers what its script says. */
const CRI_METHOD = '/runtime.v1.RuntimeService/Version';
/** A CRI call's deadline: well past every case's bound, so an ending call is the client's doing, not its deadline's. */
const CRI_DEADLINE_MS = 120_000;
/** The API client's HTTP/2 settings: no health-check pings of its own to mix with the server's frames. */
const API_H2 = { readIdleMs: 0, pingTimeoutMs: 15_000, connectTimeoutMs: 5_000 };

/** What a case may ask of its client: a message limit (CRI), and the last stream id a connection may use (both). */
export interface ClientOptions {
  maxMessageBytes?: number;
  lastStreamId?: number;
}

/** The CRI client's default message limit (the kubelet's 16 MiB). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export function peerClient(server: MaliciousH2Server, pki: TestPki, options: ClientOptions = {}): PeerClient {
  const { maxMessageBytes = MAX_MESSAGE_BYTES, lastStreamId } = options;
  const ids = lastStreamId === undefined ? {} : { lastStreamId };
  if (server.transport === 'unix') {
    const client = http2UnaryClient(server.socketPath, { maxMessageBytes, ...ids } as Parameters<typeof http2UnaryClient>[1]);
    return {
      call: () => new Promise((resolve) => {
        client.makeUnaryRequest(CRI_METHOD, (b: Buffer) => b, (b: Buffer) => b, Buffer.from('ping'), { deadline: Date.now() + CRI_DEADLINE_MS }, (err, value) => {
          resolve(err ? { ok: false, error: err } : { ok: true, body: value! });
        });
      }),
      watch: () => Promise.reject(new Error('the CRI client has no watches')),
      close: () => client.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'kts-evil-h2-api-'));
  const rest = new RestClient(readKubeconfig(writeKubeconfig(dir, { server: `https://127.0.0.1:${server.port}`, caPem: pki.caPem, token: 'tok' })), { now: () => 0 }, 'ua', { ...API_H2, ...ids });
  return {
    call: () => rest.request<unknown>('GET', '/api/v1/namespaces/default').then(
      (value) => ({ ok: true, body: Buffer.from(JSON.stringify(value)) }),
      (error: Error) => ({ ok: false, error }),
    ),
    watch: () => rest.stream('/api/v1/pods', { query: { watch: true } }),
    close: () => {
      rest.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The answer a well-behaved server gives on the transport's path: a gRPC message, or a JSON object. */
export async function answerWell(peer: PeerConnection, transport: Transport, streamId: number): Promise<void> {
  if (transport === 'unix') {
    const message = Buffer.from('pong');
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
    await peer.send(headerFrames(streamId, headerBlock([[':status', '200'], ['content-type', 'application/grpc']]), false));
    await peer.sendData(streamId, framed);
    await peer.send(headerFrames(streamId, headerBlock([['grpc-status', '0']]), true));
    return;
  }
  await peer.send(headerFrames(streamId, headerBlock([[':status', '200'], ['content-type', 'application/json']]), false));
  await peer.sendData(streamId, Buffer.from('{"kind":"Namespace"}'), true);
}

/** The first header block of an answer that then goes on: a gRPC answer's headers, or a JSON answer's. */
export function answerHeaders(transport: Transport): Buffer {
  return headerBlock([[':status', '200'], ['content-type', transport === 'unix' ? 'application/grpc' : 'application/json']]);
}

/** How soon the client must refuse a call, close the connection, or answer. */
export const CLOSE_WITHIN_MS = 5_000;
/** How much the process's RSS may grow while a peer misbehaves. */
export const RSS_GROWTH_LIMIT_BYTES = 64 * 1024 * 1024;
/** The longest the event loop may be held at once by the process's own work (the meter leaves out waiting for a core). */
export const LOOP_STALL_LIMIT_MS = 500;
/** How long a peer goes on misbehaving when the client does not stop it: past the bound, so the bound is what fails. */
export const CASE_LIMITS = { rssBytes: RSS_GROWTH_LIMIT_BYTES, caseMs: 2 * CLOSE_WITHIN_MS };
/** What `within` answers when the bound passed first. */
export const TIMED_OUT = 'timed out' as const;
const MIB = 1024 * 1024;

/** Memory and loop within their bounds over a case. */
export function expectBounded(measured: Measured, rssLimitBytes = RSS_GROWTH_LIMIT_BYTES): void {
  expect(measured.overMemory, `RSS grew ${(measured.rssGrowthBytes / MIB).toFixed(0)} MiB, over the ${rssLimitBytes / MIB} MiB bound`).toBe(false);
  expect(measured.loopStallMs, 'the event loop was held past its bound').toBeLessThan(LOOP_STALL_LIMIT_MS);
}

export interface Measured {
  /** Peak RSS over the case, less the RSS at its start. */
  rssGrowthBytes: number;
  /**
   * The event loop's longest hold over the case: of each gap between two ticks of a 10 ms probe,
   * the part the process spent on the CPU. A loop held by our own work counts whole; a process
   * merely waiting for a core on a loaded machine does not.
   */
  loopStallMs: number;
  /** Whether the RSS bound was passed (and the case cut short). */
  overMemory: boolean;
}

/** How often RSS is sampled and the loop probed: often enough to stop a flood before it holds hundreds of MiB. */
const PROBE_MS = 10;

/** Measures RSS growth and loop holds until `stop()`; calls `onOverMemory` once growth passes `rssLimitBytes`. */
export function startMeter(rssLimitBytes: number, onOverMemory: () => void): { stop(): Measured } {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  let overMemory = false;
  let longestHoldMs = 0;
  let lastTick = performance.now();
  let lastCpu = process.cpuUsage();
  const probe = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longestHoldMs = Math.max(longestHoldMs, Math.min(now - lastTick, (cpu.user + cpu.system) / 1000));
    lastTick = now;
    lastCpu = process.cpuUsage();
    peak = Math.max(peak, process.memoryUsage.rss());
    if (!overMemory && peak - baseline > rssLimitBytes) {
      overMemory = true;
      onOverMemory();
    }
  };
  const timer = setInterval(probe, PROBE_MS);
  let measured: Measured | null = null;
  return {
    stop() {
      if (measured) return measured;
      probe();
      clearInterval(timer);
      measured = { rssGrowthBytes: peak - baseline, loopStallMs: longestHoldMs, overMemory };
      if (process.env.KUBELET_H2_PEERS_VERBOSE) process.stdout.write(`measured ${JSON.stringify(measured)}\n`);
      return measured;
    },
  };
}

/** `promise`'s value, or `timedOut` if it has none within `ms` (a bound on the client, not a wait for an event). */
export function within<T, U>(promise: Promise<T>, ms: number, timedOut: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<U>((resolve) => { timer = setTimeout(() => resolve(timedOut), ms); }); // a bound on a client that may never answer, not a wait for an event
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

export interface CaseContext {
  server: MaliciousH2Server;
  client: PeerClient;
  /** Fires when the case's time is up or its memory bound passed: the script stops misbehaving. */
  signal: AbortSignal;
}

/**
 * Runs one case: a server scripted by `script` (each connection; the signal says when to stop), a
 * client of the transport, `drive` making the calls, all under the meter. The server and client
 * are stopped whatever happens; `drive`'s value comes back with the measures.
 */
export async function runCase<T>(
  transport: Transport, pki: TestPki, limits: { rssBytes: number; caseMs: number } & ClientOptions,
  script: (peer: PeerConnection, signal: AbortSignal) => Promise<void>,
  drive: (context: CaseContext) => Promise<T>,
): Promise<{ value: T; measured: Measured; server: MaliciousH2Server }> {
  const stop = new AbortController();
  const server = await startMaliciousH2Server(transport, (peer) => script(peer, stop.signal), pki);
  const client = peerClient(server, pki, limits);
  const timer = setTimeout(() => stop.abort(), limits.caseMs);
  const meter = startMeter(limits.rssBytes, () => stop.abort());
  try {
    const value = await drive({ server, client, signal: stop.signal });
    return { value, measured: meter.stop(), server };
  } finally {
    meter.stop();
    clearTimeout(timer);
    stop.abort();
    client.close();
    await server.close();
  }
}

/** Sends `batch` again and again until the client closes the connection or the case is stopped. */
export async function flood(peer: PeerConnection, batch: Buffer, signal: AbortSignal, maxBatches = Infinity): Promise<void> {
  for (let sent = 0; sent < maxBatches && !signal.aborted && !peer.isClosed; sent++) {
    if (!(await peer.send(batch))) return;
  }
}

/** Resolves once the client closed the connection or the case is stopped: the server keeps its side open till then. */
export function untilEnd(peer: PeerConnection, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return Promise.race([peer.closed, new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
}

/** `count` copies of one frame, as one write. */
export const repeated = (oneFrame: Buffer, count: number): Buffer => Buffer.concat(Array.from({ length: count }, () => oneFrame));
