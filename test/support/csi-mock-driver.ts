/**
 * The lab's upstream CSI mock driver (../shared/lab/peers/README.md) for a kubelet root of a test's
 * own: found as $KUBELET_IT_CSI_MOCK_DRIVER, else in KUBE_LAB_BIN (built on the machine,
 * lab-bin.ts); started, waited for (its CSI socket), its
 * `gRPCCall` log lines parsed, stopped. It registers itself through `<root>/plugins_registry` as a
 * node-driver-registrar does; SIGTERM removes both of its sockets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadCsiProto } from '../../src/adapters/csi/csi-proto.js';
import { unixGrpcClient } from '../../src/adapters/csi/unix-grpc-client.js';
import { peerBinary, peerUnbuilt } from './lab-bin.js';
import type { RealPart } from './real-parts.js';

export const CSI_MOCK_DRIVER_NAME = 'csi-mock.lab.k8s.io';

/**
 * Whether the driver's log says the kubelet told it it was registered. The lab's README names the
 * line `Kubelet plugin registration: … registered`; each machine builds its own registration front,
 * so the driver's name may stand between the two.
 */
export function toldRegistered(log: string): boolean {
  return /"Kubelet plugin registration: (?:\S+ )?registered"/.test(log);
}

/** The kubelet never calls the Identity service's Probe; settled() does, and calls() leaves it out. */
const PROBE = '/csi.v1.Identity/Probe';
const PROBE_TIMEOUT_MS = 10_000;

const BINARY = 'csi-mock-driver';

const VARIABLE = 'KUBELET_IT_CSI_MOCK_DRIVER';

export function csiMockDriverPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  return { name: 'the lab\'s CSI mock driver (../shared/lab/peers)', missing: '', unbuilt: peerUnbuilt(VARIABLE, BINARY, env) };
}

export function csiMockDriverBinary(env: NodeJS.ProcessEnv = process.env): string {
  return peerBinary(VARIABLE, BINARY, env);
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
  /** Resolves once the lines of the calls answered so far are in the log. */
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
  /** Checks run on every chunk of the driver's output, each until it holds. */
  let waiting: Array<() => boolean> = [];
  const take = (chunk: string) => {
    log += chunk;
    waiting = waiting.filter((holds) => !holds());
  };
  child.stdout!.setEncoding('utf8').on('data', take);
  child.stderr!.setEncoding('utf8').on('data', take);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  /** Resolves on the output that makes `holds` true; false if the driver exits first. */
  const logShows = (holds: () => boolean) => Promise.race([
    new Promise<boolean>((resolve) => { if (holds()) resolve(true); else waiting.push(() => holds() && (resolve(true), true)); }),
    exited.then(() => false),
  ]);
  // The driver logs this line once it listens on its CSI socket.
  if (!(await logShows(() => log.includes('"CSI mock driver serving"'))) || !existsSync(endpoint)) {
    throw new Error(`the CSI mock driver did not serve ${endpoint}: ${log.slice(-2000)}`);
  }
  const identity = unixGrpcClient(loadCsiProto().identity, endpoint);
  let probes = 0;
  const probeLines = () => log.split('\n').filter((l) => l.includes('gRPCCall: ') && l.includes(PROBE)).length;
  const calls = (): CsiCall[] => log.split('\n').filter((l) => l.includes('gRPCCall: ')).map((line) => {
    const parsed = JSON.parse(line.slice(line.indexOf('gRPCCall: ') + 'gRPCCall: '.length)) as { Method: string; Request: Record<string, unknown>; Error: string };
    return { method: parsed.Method, request: parsed.Request, error: parsed.Error };
  }).filter((call) => call.method !== PROBE);
  return {
    endpoint,
    log: () => log,
    settled: async () => {
      // The driver writes a call's line before it answers the call, all on one stream: once the line
      // of a probe of ours is in, so is every call's answered before it.
      const mine = ++probes;
      await identity.call.Probe({}, PROBE_TIMEOUT_MS);
      if (!(await logShows(() => probeLines() >= mine))) throw new Error(`the CSI mock driver exited: ${log.slice(-2000)}`);
    },
    calls,
    nodeCalls: (method, withErrors = false) => calls().filter((c) => c.method === `/csi.v1.Node/${method}` && (withErrors || c.error === '')),
    stop: async () => {
      identity.close();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
