/**
 * SPDY frames trickled in: whether a peer that splits its frames into small writes makes the
 * kubelet's SPDY reader cost much more than whole frames do. The real binary with one static pod,
 * its server on 127.0.0.1 (anonymous + AlwaysAllow, as the http bench), and one exec session of
 * `sh -c 'cat >/dev/null'` through the kubelet's exec path, over SPDY/3.1 as kubectl speaks it. On
 * its stdin go 12 data frames of 16 MiB (the 24-bit maximum), first sent whole, then in a second
 * session split: each frame's first byte alone (a pause lets it arrive alone), then the rest in
 * 64 KiB writes. Reported for each: the daemon's CPU from the first frame to the end of the session
 * (stdin ended, the command's Success status read), wall time and healthz p90/max, polled while the
 * frames go through; and split/whole, the ratio of their CPU. Within 2 is PASS.
 * `npm run bench -- splitframes`.
 */
import type { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { encodeFrame, MAX_FRAME_PAYLOAD } from '../src/adapters/stream-protocols/spdy/frames.js';
import { dialSpdy, type SpdyClient } from '../test/support/spdy-client.js';
import { freePort } from './free-port.js';
import { httpsText } from './http-load.js';
import { cpuSeconds } from './proc-usage.js';
import { podRuns, sleep, withStaticPods, type Fleet } from './static-pod-fleet.js';
import { percentile, round } from './stats.js';

const FRAMES = 12;
const PIECE = 64 * 1024;
/** Long enough for the lone first byte to be read on its own at the far end. */
const FIRST_BYTE_PAUSE_MS = 20;
const HEALTHZ_EVERY_MS = 100;
const CPU_RATIO_TARGET = 2;

type Mode = 'whole' | 'split';

function execPath(pod: string): string {
  const q = new URLSearchParams([['command', 'sh'], ['command', '-c'], ['command', 'cat >/dev/null'], ['input', '1'], ['output', '1'], ['error', '1']]);
  return `/exec/default/${pod}/main?${q}`;
}

function textOf(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.once('end', () => resolve(text));
    stream.once('close', () => resolve(text));
    stream.once('error', () => resolve(text));
  });
}

/** Writes honouring the socket's backpressure. */
async function write(client: SpdyClient, bytes: Buffer): Promise<void> {
  if (client.socket.write(bytes)) return;
  await new Promise<void>((resolve, reject) => {
    const closed = () => reject(new Error('the kubelet closed the connection'));
    client.socket.once('close', closed);
    client.socket.once('drain', () => {
      client.socket.off('close', closed);
      resolve();
    });
  });
}

/** Polls healthz until `stop` is aborted; the latencies in ms. */
async function pollHealthz(port: number, stop: AbortSignal): Promise<number[]> {
  const latencies: number[] = [];
  while (!stop.aborted) {
    const t0 = performance.now();
    await httpsText(port, '/healthz').catch(() => undefined);
    latencies.push(performance.now() - t0);
    await sleep(HEALTHZ_EVERY_MS);
  }
  return latencies;
}

async function sendFrames({ daemon, nodeName }: Fleet, port: number, mode: Mode): Promise<Record<string, number>> {
  const { answer, client } = await dialSpdy({
    port, path: execPath(`bench-000-${nodeName}`), protocols: ['v4.channel.k8s.io'],
    connect: () => tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }),
  });
  if (!client) throw new Error(`exec: ${answer.status} ${answer.body.slice(0, 300)}`);
  try {
    client.socket.setNoDelay(true);
    const status = textOf(client.openStream({ streamType: 'error' }));
    const stdin = client.openStream({ streamType: 'stdin' });
    void textOf(client.openStream({ streamType: 'stdout' }));
    void textOf(client.openStream({ streamType: 'stderr' }));
    await stdin.replied;
    const frame = encodeFrame({ type: 'data', streamId: stdin.id, fin: false, data: Buffer.alloc(MAX_FRAME_PAYLOAD, 0x61) });

    const stop = new AbortController();
    const healthz = pollHealthz(port, stop.signal);
    const cpu0 = cpuSeconds(daemon.pid);
    const t0 = performance.now();
    for (let i = 0; i < FRAMES; i++) {
      let at = 0;
      if (mode === 'split') {
        await write(client, frame.subarray(0, 1));
        await sleep(FIRST_BYTE_PAUSE_MS);
        at = 1;
      }
      for (; at < frame.length; at += PIECE) await write(client, frame.subarray(at, at + PIECE));
    }
    await write(client, encodeFrame({ type: 'data', streamId: stdin.id, fin: true, data: Buffer.alloc(0) }));
    const said = await status;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(daemon.pid) - cpu0;
    stop.abort();
    const latencies = await healthz;
    if (!/"status":"Success"/.test(said)) throw new Error(`${mode}: the exec did not succeed: ${said || 'no status'}`);
    // The pauses are the client's own idle time, not work the kubelet did.
    const pauses = mode === 'split' ? (FRAMES * FIRST_BYTE_PAUSE_MS) / 1000 : 0;
    return {
      [`${mode}CpuSeconds`]: round(cpu, 2),
      [`${mode}WallSeconds`]: round(seconds - pauses, 2),
      [`${mode}HealthzP90Ms`]: round(percentile(latencies, 90), 0),
      [`${mode}HealthzMaxMs`]: round(Math.max(...latencies), 0),
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

export async function benchStreamingSplitFrames(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  // The embedded runtime only: its SPDY reader is the one under test; on containerd the kubelet
  // proxies the bytes to containerd's own streaming server, whose reader is not ours to measure.
  for (const run of podRuns('splitframes', [1], [])) {
    const port = await freePort();
    const { result } = await withStaticPods(run, { startTimeoutSeconds: 60, daemon: { serverPort: port } }, async (fleet) => {
      try {
        await sleep(2000);
        const whole = await sendFrames(fleet, port, 'whole');
        const split = await sendFrames(fleet, port, 'split');
        const ratio = split.splitCpuSeconds! / Math.max(whole.wholeCpuSeconds!, 0.01);
        return { ...whole, ...split, splitToWholeCpu: round(ratio, 2), pass: ratio <= CPU_RATIO_TARGET ? 1 : 0 };
      } catch (err) {
        throw new Error(`${run.label}: ${(err as Error).message}\nthe daemon's stderr ends:\n${fleet.daemon.stderrTail()}`, { cause: err });
      }
    });
    for (const [k, v] of Object.entries(result)) out[`${run.label}.${k}`] = v;
  }
  return out;
}
