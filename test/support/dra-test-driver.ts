/**
 * The lab's DRA test driver (the e2e suite's DRA kubelet plugin, docs/reference/build-and-test.md)
 * for a kubelet root of a test's own: found as $KUBELET_IT_DRA_TEST_DRIVER, else in KUBE_LAB_BIN;
 * started as a kubelet plugin, waited for (its registration socket), stopped. It is given a
 * kubeconfig naming no server that answers: registration and NodeUnprepareResources of a claim it
 * never prepared need no API server; publishing ResourceSlices and NodePrepareResources (which
 * reads the claim) fail, and it goes on serving.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peerBinary, peerUnbuilt } from './lab-bin.js';
import type { RealPart } from './real-parts.js';

export const DRA_TEST_DRIVER_NAME = 'test-driver.cdi.k8s.io';

const BINARY = 'dra-test-driver';
const VARIABLE = 'KUBELET_IT_DRA_TEST_DRIVER';

export function draTestDriverPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  return { name: 'the lab\'s DRA test driver', missing: '', unbuilt: peerUnbuilt(VARIABLE, BINARY, env) };
}

export interface DraTestDriver {
  /** Its registration socket under `<root>/plugins_registry`. */
  readonly registrationSocket: string;
  /** Its DRA socket, which it gives as its endpoint. */
  readonly endpoint: string;
  log(): string;
  /** SIGTERM (or `signal`: SIGKILL leaves its sockets behind), and its exit waited for. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The driver's kubeconfig: a server on a port nothing listens on. */
const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`;

/**
 * The driver for the kubelet root `rootDir`, once both its sockets are there. `kubeconfig`: a real
 * API server's, where it publishes its ResourceSlice (4 devices in the node's pool) and reads the
 * claims it prepares; `cdiDir`: where it writes their CDI specs (default `<root>/cdi`).
 */
export async function startDraTestDriver(rootDir: string, nodeName: string, opts: { kubeconfig?: string; cdiDir?: string } = {}): Promise<DraTestDriver> {
  const registry = join(rootDir, 'plugins_registry');
  // The driver makes its socket at <datadir>/<driver name>/dra.sock and makes no directory.
  const dataDir = join(rootDir, 'plugins', DRA_TEST_DRIVER_NAME);
  const registrationSocket = join(registry, `${DRA_TEST_DRIVER_NAME}-reg.sock`);
  const endpoint = join(dataDir, DRA_TEST_DRIVER_NAME, 'dra.sock');
  const kubeconfig = opts.kubeconfig ?? join(rootDir, 'dra-test-driver.kubeconfig');
  const cdiDir = opts.cdiDir ?? join(rootDir, 'cdi');
  for (const dir of [registry, join(dataDir, DRA_TEST_DRIVER_NAME), cdiDir]) mkdirSync(dir, { recursive: true });
  if (!opts.kubeconfig) writeFileSync(kubeconfig, UNREACHABLE_KUBECONFIG);
  const binary = peerBinary(VARIABLE, BINARY);
  const child = spawn(binary, [`--kubeconfig=${kubeconfig}`, 'kubelet-plugin', `--datadir=${dataDir}`, `--plugin-registration-path=${registry}`,
    `--cdi-dir=${cdiDir}`, `--node-name=${nodeName}`, '--v=6'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { log += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { log += chunk; });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const deadline = Date.now() + 10_000;
  while (!(existsSync(registrationSocket) && existsSync(endpoint))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the DRA test driver did not serve ${registrationSocket}: ${log.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    registrationSocket,
    endpoint,
    log: () => log,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
