/**
 * Start-up with an empty cert dir against a kept one, for what making the serving pair costs a
 * first start: the real binary, standalone on the
 * embedded runtime with its kubelet server on, spawn → `healthz` answers 200, and spawn → the kubelet
 * server completes a TLS handshake (the serving pair exists then). An empty dir makes the self-signed
 * pair (two RSA 2048 keys, in process); a kept one reuses it, as Go does. A third series starts tsc's
 * unbundled output with the kept dir, to show what the bundle (scripts/bundle-daemon.ts) saves.
 * Runs alternate, the order rotating each round; medians, the difference empty − kept, and the
 * ratio bundled / unbundled.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from 'node:tls';
import { freePort } from './free-port.js';
import { sleep } from './static-pod-fleet.js';
import { median, round } from './stats.js';
import { KUBELET_BIN, KUBELET_TSC_BIN } from './kubelet-bin.js';
import { KUBELET_NODE_FLAGS } from '../src/bin/node-flags.js';

const healthzOk = (port: number) => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
const tlsAnswers = (port: number) => new Promise<boolean>((done) => {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
    socket.destroy();
    done(true);
  });
  socket.on('error', () => done(false));
});

async function startOnce(root: string, certDir: string, bin = KUBELET_BIN): Promise<{ healthzMs: number; servingMs: number }> {
  const [healthzPort, port] = [await freePort(), await freePort()];
  const t0 = performance.now();
  // The flags of the binary's #! line, as a user runs it.
  const child = spawn(process.execPath, [
    ...KUBELET_NODE_FLAGS, bin,
    '--container-runtime-endpoint=embedded', `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`, `--cert-dir=${certDir}`, '--debug-address=', '--fail-swap-on=false',
    `--healthz-port=${healthzPort}`, `--port=${port}`, '--address=127.0.0.1', '--read-only-port=0',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    let healthzMs = 0;
    let servingMs = 0;
    while (healthzMs === 0 || servingMs === 0) {
      if (child.exitCode !== null) throw new Error(`the kubelet exited:\n${stderr.slice(-2000)}`);
      if (performance.now() - t0 > 30_000) throw new Error(`no healthz and kubelet server within 30 s:\n${stderr.slice(-2000)}`);
      if (healthzMs === 0 && (await healthzOk(healthzPort))) healthzMs = performance.now() - t0;
      if (servingMs === 0 && (await tlsAnswers(port))) servingMs = performance.now() - t0;
      await sleep(5);
    }
    return { healthzMs, servingMs };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

export async function benchStartupCerts(runs = Number(process.env.KUBELET_BENCH_STARTUP_RUNS ?? 10)): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-certs-'));
  try {
    const kept = join(dir, 'kept-pki');
    await startOnce(join(dir, 'warm'), kept); // makes the kept pair (and warms the disk cache)
    const empty: { healthzMs: number; servingMs: number }[] = [];
    const reused: { healthzMs: number; servingMs: number }[] = [];
    const unbundled: { healthzMs: number; servingMs: number }[] = [];
    const kinds = ['empty', 'kept', 'unbundled'] as const;
    for (let i = 0; i < runs; i++) {
      const order = [...kinds.slice(i % 3), ...kinds.slice(0, i % 3)];
      for (const which of order) {
        const root = join(dir, `${which}-${i}`);
        if (which === 'empty') empty.push(await startOnce(root, join(root, 'pki')));
        else if (which === 'kept') reused.push(await startOnce(root, kept));
        else unbundled.push(await startOnce(root, kept, KUBELET_TSC_BIN));
        rmSync(root, { recursive: true, force: true });
      }
    }
    const m = (xs: { healthzMs: number; servingMs: number }[], k: 'healthzMs' | 'servingMs') => median(xs.map((x) => x[k]));
    return {
      certRuns: runs,
      healthzMsEmptyCertDir: round(m(empty, 'healthzMs'), 0),
      healthzMsKeptCertDir: round(m(reused, 'healthzMs'), 0),
      healthzMsEmptyMinusKept: round(m(empty, 'healthzMs') - m(reused, 'healthzMs'), 0),
      servingMsEmptyCertDir: round(m(empty, 'servingMs'), 0),
      servingMsKeptCertDir: round(m(reused, 'servingMs'), 0),
      healthzMsKeptCertDirUnbundled: round(m(unbundled, 'healthzMs'), 0),
      healthzBundledOverUnbundledRatio: round(m(reused, 'healthzMs') / m(unbundled, 'healthzMs'), 3),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
