/**
 * Loaded into the kubelet a hostile-peer case measures (`node --import`), so the stall is the
 * kubelet's own: its event loop's lateness sampled every 10 ms (loop-stall.ts; the daemon's own
 * meter samples every second, too coarse for a 100 ms bound: a block that ends before a sample is
 * due would not show).
 * It answers on the unix socket KUBELET_BENCH_LOOP_PROBE names, one line per request: `reset`
 * starts a window, `read` gives the window's longest stall.
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { startStallMeter } from './loop-stall.js';

export const LOOP_PROBE_ENV = 'KUBELET_BENCH_LOOP_PROBE';
const RESOLUTION_MS = 10;

export interface LoopWindow {
  /** The longest the loop was late past the sampling interval, in ms. */
  maxStallMs: number;
  /** Samples in the window. */
  samples: number;
}

const socket = process.env[LOOP_PROBE_ENV];
if (socket) {
  // The kubelet's children (the embedded runtime's shims) must not start probes of their own.
  delete process.env[LOOP_PROBE_ENV];
  const meter = startStallMeter(RESOLUTION_MS);
  rmSync(socket, { force: true });
  const server = createServer((conn) => {
    conn.setEncoding('utf8').on('data', (line: string) => {
      const answer = line.trim() === 'reset' ? (meter.reset(), { ok: true }) : (meter.read() satisfies LoopWindow);
      conn.end(`${JSON.stringify(answer)}\n`);
    });
  });
  server.listen(socket);
  // Never what keeps the kubelet alive.
  server.unref();
}
