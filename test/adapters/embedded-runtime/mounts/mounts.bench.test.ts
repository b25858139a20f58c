/**
 * What a mount namespace adds to a container's start: CreateContainer + StartContainer until the
 * runtime answers (the shim has spawned the container's process), and until the container's first
 * output line is in its log, 20 times without mounts and 20 times with what the kubelet sends
 * (/etc/hosts, /dev/termination-log — an overlay on /dev —, a service account token directory — an
 * overlay on /run), and 20 times with one volume whose mount point exists (the layer alone). Gated: KLT_BENCH_MOUNTS=1,
 * as root. Prints the figures; asserts only that every container started.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime } from '../../../../src/adapters/embedded-runtime/index.js';
import type { Mount as CriMount } from '../../../../src/generated/runtime/v1/Mount.js';

const RUNS = 20;

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  const mean = (ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1);
  return `median ${at(0.5)} ms, mean ${mean} ms, p90 ${at(0.9)} ms, min ${sorted[0]!.toFixed(1)} ms`;
}

describe.runIf(process.env.KLT_BENCH_MOUNTS && process.getuid?.() === 0)('embedded runtime mount namespace start-up cost', () => {
  it(`measures CreateContainer+StartContainer ${RUNS} times with and without mounts`, { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'klt-mounts-bench-'));
    const runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state') });
    const cri = createCriClient({ endpoint: runtime.endpoint });
    try {
      const volume = join(dir, 'volume');
      await mkdir(volume);
      await writeFile(join(dir, 'hosts'), '127.0.0.1 localhost\n');
      const sandboxConfig = { metadata: { name: 'bench', uid: 'uid-bench', namespace: 'default', attempt: 0 }, log_directory: join(dir, 'logs') };
      const sandboxId = await cri.runtime.runPodSandbox(sandboxConfig);
      const kubeletMounts = async (i: number): Promise<CriMount[]> => {
        const message = join(dir, `termination-${i}`);
        await writeFile(message, '');
        return [
          { host_path: join(dir, 'hosts'), container_path: '/etc/hosts' },
          { host_path: message, container_path: '/dev/termination-log' },
          { host_path: volume, container_path: '/var/run/secrets/kubernetes.io/serviceaccount', readonly: true },
        ];
      };
      const results: Record<string, { rpc: number[]; firstLine: number[] }> = {};
      // Interleaved, so a slow patch of the machine does not land on one side only; one warm-up each.
      for (let i = -1; i < RUNS; i++) {
        for (const variant of ['without mounts', 'with one volume', 'with mounts'] as const) {
          const name = `${variant.split(' ')[1]}${i + 1}`;
          const mounts = variant === 'with mounts' ? await kubeletMounts(i + 1)
            : variant === 'with one volume' ? [{ host_path: volume, container_path: volume }] : [];
          const logPath = join(dir, 'logs', name, '0.log');
          const began = performance.now();
          const id = await cri.runtime.createContainer(sandboxId, {
            metadata: { name, attempt: 0 }, image: { image: 'kubelet-ts.local/busybox:1.0' },
            // Stays up until the bench removes it.
            command: ['sh', '-c', 'echo up; exec sleep 3600'], log_path: `${name}/0.log`, mounts,
          }, sandboxConfig);
          await cri.runtime.startContainer(id);
          const rpc = performance.now() - began;
          while (!existsSync(logPath) || !(await readFile(logPath, 'utf8')).includes(' up')) await new Promise((r) => setTimeout(r, 1)); // poll period: the process writes the line, no event says when
          const firstLine = performance.now() - began;
          await cri.runtime.removeContainer(id);
          if (i < 0) continue;
          (results[variant] ??= { rpc: [], firstLine: [] }).rpc.push(rpc);
          results[variant].firstLine.push(firstLine);
        }
      }
      for (const [variant, r] of Object.entries(results)) {
        console.log(`${variant}: create+start ${summary(r.rpc)}; to first log line ${summary(r.firstLine)}`);
      }
      expect(results['with mounts']?.rpc).toHaveLength(RUNS);
    } finally {
      for (const sandbox of await cri.runtime.listPodSandbox().catch(() => [])) await cri.runtime.removePodSandbox(sandbox.id).catch(() => undefined);
      cri.close();
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
