/**
 * The lab's upstream CSI mock driver (../shared/lab/peers/README.md): found as $KUBELET_IT_CSI_MOCK_DRIVER,
 * else unpacked once from the peers folder's csi-mock-driver.xz into the temporary directory, and
 * started for a kubelet's root dir; it registers itself through `<root>/plugins_registry` as a
 * node-driver-registrar does. SIGTERM removes both of its sockets.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RealPart } from './real-parts.js';

export const MOCK_DRIVER = 'csi-mock.lab.k8s.io';

const peersDir = (env: NodeJS.ProcessEnv) => env.KUBELET_IT_LAB_PEERS || resolve('..', 'shared', 'lab', 'peers');
const packed = (env: NodeJS.ProcessEnv) => join(peersDir(env), 'csi-mock-driver.xz');

export function csiMockDriverPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  const there = (env.KUBELET_IT_CSI_MOCK_DRIVER && existsSync(env.KUBELET_IT_CSI_MOCK_DRIVER)) || existsSync(packed(env));
  return { name: 'the lab\'s CSI mock driver (../shared/lab/peers)', missing: there ? '' : `neither $KUBELET_IT_CSI_MOCK_DRIVER nor ${packed(env)} exists` };
}

/** The driver's executable, unpacked on first use. */
export function csiMockDriverBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KUBELET_IT_CSI_MOCK_DRIVER) return env.KUBELET_IT_CSI_MOCK_DRIVER;
  const bin = join(tmpdir(), 'kubelet-ts-csi-mock-driver');
  if (!existsSync(bin)) {
    const part = `${bin}.${process.pid}`;
    writeFileSync(part, execFileSync('xz', ['-dc', packed(env)], { maxBuffer: 64 << 20 }));
    chmodSync(part, 0o755);
    renameSync(part, bin);
  }
  return bin;
}

export interface CsiMockDriver {
  child: ChildProcess;
  log: () => string;
  /** SIGTERM, and its exit waited for. */
  stop: () => Promise<void>;
}

export function startCsiMockDriver(rootDir: string): CsiMockDriver {
  const child = spawn(csiMockDriverBinary(), [`--kubelet-dir=${rootDir}`, '--v=3'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
