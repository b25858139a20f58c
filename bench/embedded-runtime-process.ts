/**
 * The embedded CRI runtime as a process of its own (`kubelet-ts runtime serve`), so the benchmark's
 * client and the server do not share an event loop — as with containerd, where they never do.
 */
import { spawn } from 'node:child_process';

import { createCriClient } from '../src/adapters/cri-grpc/index.js';
import { KUBELET_BIN as BIN } from './kubelet-bin.js';

export interface RuntimeProcess {
  endpoint: string;
  pid: number;
  /** SIGTERM, and wait for the exit. Containers left would outlive it: remove them first. */
  stop(): Promise<void>;
}

export async function startEmbeddedRuntimeProcess(socketPath: string, stateDir: string): Promise<RuntimeProcess> {
  const endpoint = `unix://${socketPath}`;
  const child = spawn(process.execPath, [BIN, 'runtime', 'serve', '--listen', endpoint, '--state-dir', stateDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`embedded runtime exited during start-up:\n${stderr}`);
    const cri = createCriClient({ endpoint, readTimeoutMs: 1_000 });
    const up = await cri.runtime.version().then(() => true, () => false);
    cri.close();
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded runtime did not answer on ${endpoint} within 20 s:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
