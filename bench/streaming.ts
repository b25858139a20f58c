/**
 * Streaming through the kubelet under load, to show that exec and port-forward traffic pass intact
 * and leave the syncLoop on time: the real binary with one static pod and its
 * server on 127.0.0.1 (anonymous + AlwaysAllow, as the http bench), then all at once
 * - 20 exec sessions of `cat`: 1 MiB of random bytes in through stdin, back out through stdout,
 *   checked by sha256, the v4 Status on the error stream a Success;
 * - 5 port-forwards, 100 MiB each way through an echo server, checked by sha256;
 * over SPDY/3.1 as kubectl and the API server speak it. The kubelet proxies each connection to the
 * runtime's streaming server (the embedded runtime's, or containerd's when KUBELET_IT_CRI names it).
 * Reported: how many sessions and transfers came back intact (must be all), wall time, MiB/s, the
 * daemon's CPU over the window, and the syncLoop's lag over the window from /metrics: no sample over
 * 100 ms and no error is PASS.
 * The echo server: on the embedded runtime the pod shares the host's network, so it is this
 * process's, on 127.0.0.1; on containerd it is busybox's `nc -ll -p PORT -e cat` in the pod, started
 * through one more exec session.
 * `npm run bench -- streaming`; KUBELET_BENCH_STREAM_MIB=N: N MiB per port-forward instead of 100.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Readable } from 'node:stream';
import { dialSpdy, type SpdyClient } from '../test/support/spdy-client.js';
import { freePort } from './free-port.js';
import { httpsText } from './http-load.js';
import { cpuSeconds, rssMiB } from './proc-usage.js';
import { countAbove, highestBucket, histogramDelta, histogramFrom, parseSamples } from './prometheus-samples.js';
import { podRuns, sleep, withStaticPods, type Fleet } from './static-pod-fleet.js';
import { percentile, round } from './stats.js';
import { LAG_TARGET_SECONDS } from './http.js';

const EXEC_SESSIONS = 20;
const EXEC_BYTES = 1024 * 1024;
const FORWARDS = 5;
const FORWARD_MIB = Number(process.env.KUBELET_BENCH_STREAM_MIB ?? 100);
const ECHO_PORT_IN_POD = 9000;
const LAG = 'kubelet_ts_sync_loop_iteration_lag_seconds';

const sha256 = () => createHash('sha256');

function tlsTo(port: number): () => Socket {
  return () => tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
}

async function spdy(port: number, path: string, protocol: string): Promise<SpdyClient> {
  const { answer, client } = await dialSpdy({ port, path, protocols: [protocol], connect: tlsTo(port) });
  if (!client) throw new Error(`${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return client;
}

function drain(stream: Readable, hash?: ReturnType<typeof sha256>): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash?.update(chunk);
    });
    // containerd hangs up without ending every stream first: a close ends the count too (the digest tells a loss).
    stream.once('end', () => resolve(bytes));
    stream.once('close', () => resolve(bytes));
    stream.once('error', reject);
  });
}

function textOf(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.once('end', () => resolve(text));
    stream.once('close', () => resolve(text));
    stream.once('error', reject);
  });
}

/**
 * Writes `total` pseudo-random bytes in 64 KiB pieces, honouring backpressure; resolves with their
 * sha256, rejects if the stream closes first (the server gave up on it).
 */
async function pump(stream: NodeJS.WritableStream & Readable, total: number): Promise<string> {
  const hash = sha256();
  const piece = randomBytes(64 * 1024);
  for (let sent = 0; sent < total; sent += piece.length) {
    // Vary each piece so a repeated or dropped one changes the digest.
    piece.writeUInt32BE(sent >>> 16, 0);
    const chunk = piece.subarray(0, Math.min(piece.length, total - sent));
    hash.update(chunk);
    if (!stream.write(Buffer.from(chunk))) {
      await new Promise<void>((resolve, reject) => {
        const closed = () => reject(new Error(`the stream closed after ${sent} of ${total} bytes`));
        stream.once('close', closed);
        stream.once('drain', () => {
          stream.off('close', closed);
          resolve();
        });
      });
    }
  }
  stream.end();
  return hash.digest('hex');
}

function execPath(pod: string, command: readonly string[], stdin: boolean): string {
  // The kubelet's names, as the API server sends them (a PodExecOptions' stdin=true becomes input=1).
  const pairs: [string, string][] = [...command.map((c): [string, string] => ['command', c]), ['output', '1'], ['error', '1']];
  if (stdin) pairs.push(['input', '1']);
  const q = new URLSearchParams(pairs);
  return `/exec/default/${pod}/main?${q}`;
}

interface ExecResult { ok: boolean; ms: number; problem?: string }

async function oneExec(port: number, pod: string): Promise<ExecResult> {
  const t0 = performance.now();
  const client = await spdy(port, execPath(pod, ['cat'], true), 'v4.channel.k8s.io');
  try {
    const error = client.openStream({ streamType: 'error' });
    const stdin = client.openStream({ streamType: 'stdin' });
    const stdout = client.openStream({ streamType: 'stdout' });
    const stderr = client.openStream({ streamType: 'stderr' });
    const got = sha256();
    const [sent, , , status] = await Promise.all([pump(stdin, EXEC_BYTES), drain(stdout, got), drain(stderr), textOf(error)]);
    const digest = got.digest('hex');
    const success = /"status":"Success"/.test(status);
    const problem = digest !== sent ? 'stdout differs from stdin' : success ? undefined : `status ${status}`;
    return { ok: problem === undefined, ms: performance.now() - t0, ...(problem ? { problem } : {}) };
  } finally {
    client.close();
  }
}

interface ForwardResult { ok: boolean; mibPerSecond: number; problem?: string }

async function oneForward(port: number, pod: string, podPort: number): Promise<ForwardResult> {
  const client = await spdy(port, `/portForward/default/${pod}`, 'portforward.k8s.io');
  try {
    const t0 = performance.now();
    const errorText: string[] = [];
    const error = client.openStream({ streamType: 'error', port: String(podPort), requestID: '0' });
    const data = client.openStream({ streamType: 'data', port: String(podPort), requestID: '0' });
    // A dial failure comes on the error stream: the transfer is over then.
    error.on('data', (c: Buffer) => {
      errorText.push(c.toString());
      data.destroy(new Error(errorText.join('')));
    });
    const got = sha256();
    const total = FORWARD_MIB * 1024 * 1024;
    const [sent, received] = await Promise.all([pump(data, total), drain(data, got)]);
    const seconds = (performance.now() - t0) / 1000;
    const digest = got.digest('hex');
    const problem = errorText.length > 0 ? errorText.join('') : received !== total ? `${received} of ${total} bytes back` : digest !== sent ? 'echo differs' : undefined;
    return { ok: problem === undefined, mibPerSecond: (2 * FORWARD_MIB) / seconds, ...(problem ? { problem } : {}) };
  } finally {
    client.close();
  }
}

/** An echo server on the host (the embedded runtime's pods share its network). */
async function hostEcho(): Promise<{ port: number; server: Server }> {
  const port = await freePort();
  const server = createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server };
}

/** busybox's nc echoing in the pod, for as long as the returned session is open. */
async function podEcho(port: number, pod: string): Promise<{ port: number; close: () => void }> {
  // busybox's nc: -ll keeps listening after each connection (it has no -k).
  const client = await spdy(port, execPath(pod, ['nc', '-ll', '-p', String(ECHO_PORT_IN_POD), '-e', 'cat'], false), 'v4.channel.k8s.io');
  client.openStream({ streamType: 'error' });
  client.openStream({ streamType: 'stdout' });
  client.openStream({ streamType: 'stderr' });
  await sleep(500);
  return { port: ECHO_PORT_IN_POD, close: () => client.close() };
}

async function underLoad({ run, daemon, nodeName }: Fleet, port: number, host: { port: number; server: Server } | undefined): Promise<Record<string, number>> {
  const pod = `bench-000-${nodeName}`;
  const inPod = host ? undefined : await podEcho(port, pod);
  const echoPort = host?.port ?? inPod!.port;
  try {
    await sleep(2000);
    const before = parseSamples((await httpsText(port, '/metrics')).body);
    const cpu0 = cpuSeconds(daemon.pid);
    let peakRss = rssMiB(daemon.pid);
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(daemon.pid))), 200);
    const t0 = performance.now();
    const [execs, forwards] = await Promise.all([
      Promise.all(Array.from({ length: EXEC_SESSIONS }, () => oneExec(port, pod).catch((err: Error): ExecResult => ({ ok: false, ms: 0, problem: err.message })))),
      Promise.all(Array.from({ length: FORWARDS }, () => oneForward(port, pod, echoPort).catch((err: Error): ForwardResult => ({ ok: false, mibPerSecond: 0, problem: err.message })))),
    ]);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const cpu = cpuSeconds(daemon.pid) - cpu0;
    // The lag histogram is folded as timers fire: let the last second of the window land.
    await sleep(1500);
    const lag = histogramDelta(histogramFrom(parseSamples((await httpsText(port, '/metrics')).body), LAG), histogramFrom(before, LAG));
    for (const p of [...execs, ...forwards].filter((r) => !r.ok)) process.stdout.write(`streaming ${run.label}: ${p.problem}\n`);
    const errors = execs.filter((r) => !r.ok).length + forwards.filter((r) => !r.ok).length;
    const over = countAbove(lag, LAG_TARGET_SECONDS);
    return {
      execSessionsIntact: execs.filter((r) => r.ok).length,
      execP50Ms: round(percentile(execs.map((r) => r.ms), 50), 0),
      execMaxMs: round(Math.max(...execs.map((r) => r.ms)), 0),
      portForwardsIntact: forwards.filter((r) => r.ok).length,
      portForwardMiBEachWay: FORWARD_MIB,
      portForwardMinMiBPerSecond: round(Math.min(...forwards.map((r) => r.mibPerSecond)), 1),
      windowSeconds: round(seconds, 1),
      daemonCpuSeconds: round(cpu, 2),
      daemonPeakRssMiB: round(peakRss, 1),
      lagSamples: lag.count,
      lagHighestBucketSeconds: highestBucket(lag),
      lagSamplesOver100ms: over,
      errors,
      pass: over === 0 && errors === 0 && lag.count > 0 ? 1 : 0,
    };
  } finally {
    inPod?.close();
  }
}

export async function benchStreaming(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const run of podRuns('streaming', [1], [1])) {
    const port = await freePort();
    // The embedded runtime's pods share the host's network, and it forwards only the ports a pod
    // declares: the echo server's port is chosen first and declared by the pod.
    const host = run.endpoint === 'embedded' ? await hostEcho() : undefined;
    try {
      const { result } = await withStaticPods(run, { startTimeoutSeconds: 60, daemon: { serverPort: port }, ...(host ? { containerPorts: [host.port] } : {}) }, async (fleet) => {
        try {
          return await underLoad(fleet, port, host);
        } catch (err) {
          throw new Error(`${run.label}: ${(err as Error).message}\nthe daemon's stderr ends:\n${fleet.daemon.stderrTail()}`, { cause: err });
        }
      });
      for (const [k, v] of Object.entries(result)) out[`${run.label}.${k}`] = v;
    } finally {
      host?.server.close();
    }
  }
  return out;
}
