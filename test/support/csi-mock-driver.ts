/**
 * The lab's upstream CSI mock driver (../shared/lab/peers/README.md) for a kubelet root of a test's
 * own: found as $KUBELET_IT_CSI_MOCK_DRIVER, else unpacked once from the peers folder's
 * csi-mock-driver.xz into the temporary directory; started, waited for (its CSI socket), its
 * `gRPCCall` log lines parsed, stopped. It registers itself through `<root>/plugins_registry` as a
 * node-driver-registrar does; SIGTERM removes both of its sockets.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RealPart } from './real-parts.js';

export const CSI_MOCK_DRIVER_NAME = 'csi-mock.lab.k8s.io';

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

export interface CsiCall {
  method: string;
  request: Record<string, unknown>;
  error: string;
}

export interface CsiMockDriver {
  readonly endpoint: string;
  /** Everything it logged so far. */
  log(): string;
  /** Resolves once the log has been quiet for a moment: the lines of the calls answered so far are in. */
  settled(): Promise<void>;
  /** Every gRPC call logged so far, in order. */
  calls(): CsiCall[];
  /** The calls of one Node method (`NodePublishVolume`), successful ones only unless `withErrors`. */
  nodeCalls(method: string, withErrors?: boolean): CsiCall[];
  /** SIGTERM, and its exit waited for. */
  stop(): Promise<void>;
}

/** The mock for the kubelet root `rootDir`, under the driver name `driverName`, once its CSI socket is there. */
export async function startCsiMockDriver(rootDir: string, driverName = CSI_MOCK_DRIVER_NAME): Promise<CsiMockDriver> {
  const endpoint = `${rootDir}/plugins/${driverName}/csi.sock`;
  const child: ChildProcess = spawn(csiMockDriverBinary(), [`--kubelet-dir=${rootDir}`, `--drivername=${driverName}`, '--v=3'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let lastChunkAt = Date.now();
  const take = (chunk: string) => {
    log += chunk;
    lastChunkAt = Date.now();
  };
  child.stdout!.setEncoding('utf8').on('data', take);
  child.stderr!.setEncoding('utf8').on('data', take);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let i = 0; !existsSync(endpoint); i++) {
    if (child.exitCode !== null || i > 200) throw new Error(`the CSI mock driver did not serve ${endpoint}: ${log.slice(-2000)}`);
    // A poll: the socket is another process's file, and it says nothing when it is made.
    await new Promise((r) => setTimeout(r, 50));
  }
  const calls = (): CsiCall[] => log.split('\n').filter((l) => l.includes('gRPCCall: ')).map((line) => {
    const parsed = JSON.parse(line.slice(line.indexOf('gRPCCall: ') + 'gRPCCall: '.length)) as { Method: string; Request: Record<string, unknown>; Error: string };
    return { method: parsed.Method, request: parsed.Request, error: parsed.Error };
  });
  return {
    endpoint,
    log: () => log,
    settled: async () => {
      // The driver logs a call after answering it, from another process: the log is read as complete
      // once it has been quiet for 150 ms (a line within the first 20 ms counts as still coming).
      await new Promise((r) => setTimeout(r, 20));
      // The quiet period's poll: no event says another process has stopped writing.
      while (Date.now() - lastChunkAt < 150) await new Promise((r) => setTimeout(r, 50));
    },
    calls,
    nodeCalls: (method, withErrors = false) => calls().filter((c) => c.method === `/csi.v1.Node/${method}` && (withErrors || c.error === '')),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
