/**
 * The lab's upstream CSI mock driver (/work/shared/lab/peers/README.md) for a kubelet root of a
 * test's own: started, waited for (its CSI socket), its `gRPCCall` log lines parsed, stopped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { RealPart } from './real-parts.js';

export const CSI_MOCK_DRIVER_BIN = process.env.KUBELET_IT_CSI_MOCK ?? '/work/lab/peers/csi-mock-driver';
export const CSI_MOCK_DRIVER_NAME = 'csi-mock.lab.k8s.io';

export function csiMockDriverPart(bin = CSI_MOCK_DRIVER_BIN): RealPart {
  return { name: 'the CSI mock driver', missing: existsSync(bin) ? '' : `${bin} is missing (unpack csi-mock-driver.xz of the lab's peers, or set KUBELET_IT_CSI_MOCK)` };
}

export interface CsiCall {
  method: string;
  request: Record<string, unknown>;
  error: string;
}

export interface CsiMockDriver {
  readonly endpoint: string;
  /** Resolves once the log has been quiet for a moment: the lines of the calls answered so far are in. */
  settled(): Promise<void>;
  /** Every gRPC call logged so far, in order. */
  calls(): CsiCall[];
  /** The calls of one Node method (`NodePublishVolume`), successful ones only unless `withErrors`. */
  nodeCalls(method: string, withErrors?: boolean): CsiCall[];
  stop(): Promise<void>;
}

/** The mock for the kubelet root `rootDir`, under the driver name `driverName`. */
export async function startCsiMockDriver(rootDir: string, driverName = CSI_MOCK_DRIVER_NAME, bin = CSI_MOCK_DRIVER_BIN): Promise<CsiMockDriver> {
  const endpoint = `${rootDir}/plugins/${driverName}/csi.sock`;
  const child: ChildProcess = spawn(bin, [`--kubelet-dir=${rootDir}`, `--drivername=${driverName}`, '--v=3'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  let lastChunkAt = Date.now();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
    lastChunkAt = Date.now();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !existsSync(endpoint); i++) {
    if (child.exitCode !== null || i > 200) throw new Error(`the CSI mock driver did not serve ${endpoint}: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const calls = (): CsiCall[] => log.split('\n').filter((l) => l.includes('gRPCCall: ')).map((line) => {
    const parsed = JSON.parse(line.slice(line.indexOf('gRPCCall: ') + 'gRPCCall: '.length)) as { Method: string; Request: Record<string, unknown>; Error: string };
    return { method: parsed.Method, request: parsed.Request, error: parsed.Error };
  });
  return {
    endpoint,
    settled: async () => {
      await new Promise((r) => setTimeout(r, 20));
      while (Date.now() - lastChunkAt < 150) await new Promise((r) => setTimeout(r, 50));
    },
    calls,
    nodeCalls: (method, withErrors = false) => calls().filter((c) => c.method === `/csi.v1.Node/${method}` && (withErrors || c.error === '')),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
