/**
 * A kubelet-ts node on the run's real control plane (kube-lab.ts), as a node that has already joined
 * runs: a client certificate for system:node:<name> (node-kubeconfig.sh), its own namespace for the
 * test's pods (with the service account and root CA ConfigMap the controller-manager puts in it),
 * the kubelet server on 127.0.0.1 letting the API server in by its kubelet-client certificate, and
 * the API read and written as system:masters. Disposing of it leaves nothing on the shared lab: the
 * namespace's pods force-deleted, the Node deleted, the runtime's pods removed.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnClusterKubelet, stopClusterKubelet, type ClusterKubelet } from './cluster-kubelet.js';
import { freePort, httpsRequest, removePods, unmountUnder, until } from './daemon.js';
import { kubeLab, labApi, type KubeLab } from './kube-lab.js';
import { runScript, scriptEnv } from './kube-lab-scripts.js';
import { runKubectl } from './kubectl-run.js';
import { SLEEP_UNTIL_TERM } from './sleeper.js';

export const BUSYBOX = 'kubelet-ts.local/busybox:1.0';
/** A container that sleeps until SIGTERM and then exits 0 at once. */
export const SLEEP = SLEEP_UNTIL_TERM;

export interface Condition { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }
export interface ContainerStatus { name: string; ready?: boolean; restartCount?: number; state?: { running?: object; waiting?: { reason?: string; message?: string }; terminated?: object } }
export interface LabPod {
  metadata: { name: string; uid: string; generation?: number; deletionTimestamp?: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  spec: Record<string, unknown> & { nodeName?: string };
  status?: { phase?: string; reason?: string; message?: string; podIP?: string; observedGeneration?: number; resourceClaimStatuses?: unknown[]; conditions?: Condition[]; containerStatuses?: ContainerStatus[] };
}
export interface LabNodeObject {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { taints?: { key: string; effect: string; value?: string }[] };
  status?: { conditions?: Condition[]; allocatable?: Record<string, string>; capacity?: Record<string, string> };
}
export interface LabEvent {
  type?: string; reason?: string; message?: string; count?: number; firstTimestamp?: string; source?: { component?: string; host?: string };
  involvedObject?: { kind?: string; apiVersion?: string; namespace?: string; name?: string; uid?: string; fieldPath?: string };
}

export interface LabNode {
  lab: KubeLab;
  node: string;
  ns: string;
  dir: string;
  /** The kubelet server's port on 127.0.0.1. */
  port: number;
  /** The debug server's port on 127.0.0.1 (`debug` nodes), else 0. */
  debugPort: number;
  kubelet: () => ClusterKubelet;
  /** until(), its failure carrying the kubelet's log, cut short when the kubelet exits. */
  whileUp: <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms: number) => Promise<T>;
  /** GET that must answer 200. */
  get: <T>(path: string) => Promise<T>;
  /** POST that must answer 201: the created object. */
  create: <T = unknown>(path: string, object: unknown) => Promise<T>;
  /** Its Node as the API server has it. */
  nodeObject: () => Promise<LabNodeObject>;
  /** A GET to the kubelet server as the API server's kubelet client (apiserver-kubelet-client): the API server refuses to proxy to a loopback address. */
  kubeletGet: (path: string) => Promise<{ status: number; body: string }>;
  /** The test's namespace's pod, or undefined once it is gone. */
  pod: (name: string) => Promise<LabPod | undefined>;
  /** Events of the namespace (the test's by default) whose involvedObject matches `field=value` selectors. */
  events: (selector: Record<string, string>, ns?: string) => Promise<LabEvent[]>;
  /**
   * Waits until the API server's proxy reaches the kubelet for the pod's log (`resolvable` nodes).
   * The API server, a Go program, reads /etc/hosts again at most every 5 s: a line just added may
   * not resolve yet, and kubectl would say `no such host`.
   */
  untilProxied: (podName: string) => Promise<void>;
  /** Creates a pod in the test's namespace bound to this node (spec.nodeName, no scheduler). */
  createPod: (name: string, spec: Record<string, unknown>) => Promise<LabPod>;
  /** Stops the kubelet (idempotent): its exit code. */
  stop: () => Promise<number | null>;
  /** Stops the kubelet and starts it again on the same directories and port; `extraConfig` replaces its configuration's extra lines (absent: the same). */
  restart: (extraConfig?: string[]) => Promise<void>;
  dispose: () => Promise<void>;
}

export interface LabNodeOptions {
  /** Node name and namespace; also the prefix of the temporary directory. */
  name: string;
  endpoint: string;
  /** Lines added to the KubeletConfiguration (see spawnClusterKubelet). */
  extraConfig?: (dir: string) => string[];
  /** Flags added to the kubelet's command line. */
  extraArgs?: (dir: string) => string[];
  /** Written before the kubelet starts (static pod manifests, say). */
  prepare?: (dir: string) => void;
  /** Makes the node's name resolve to 127.0.0.1 (an /etc/hosts line, removed on dispose): the API server's proxy (logs, exec) dials the node by its Hostname address. */
  resolvable?: boolean;
  /** Serves the debug server on a free port of 127.0.0.1. */
  debug?: boolean;
  /** Added to the kubelet's environment, read at each start. */
  env?: () => Record<string, string>;
  /**
   * Starts the kubelet some other way (as a systemd service, say): `wrap` turns its command line into
   * what is spawned, `stop` stops it (the spawned process then exits).
   */
  launcher?: { wrap: (argv: string[]) => string[]; stop: () => Promise<void> };
}

const HOSTS = '/etc/hosts';

/** The lab, a namespace ready for pods, and the kubelet started (not yet waited for). */
export async function startLabNode(opts: LabNodeOptions): Promise<LabNode> {
  const lab = await kubeLab();
  const node = opts.name;
  const ns = opts.name;
  const dir = mkdtempSync(join(tmpdir(), `${opts.name}-`));
  const port = await freePort();
  const debugPort = opts.debug ? await freePort() : 0;
  const hostsLine = `127.0.0.1 ${node} # kubelet-ts test ${process.pid}`;
  let kubelet: ClusterKubelet | null = null;

  const call = async <T>(method: string, path: string, body: unknown, want: number[]): Promise<T> => {
    const res = await labApi<T>(lab, method, path, body);
    if (!want.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const get = <T>(path: string) => call<T>('GET', path, undefined, [200]);
  const create = <T = unknown>(path: string, object: unknown) => call<T>('POST', path, object, [201]);
  const whileUp = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms: number): Promise<T> => {
    const k = kubelet!;
    return Promise.race([
      until(what, probe, ms, k.stderr),
      k.exited.then((code) => { throw new Error(`the kubelet exited (${code}) while waiting for ${what}:\n${k.stderr().slice(-3000)}`); }),
    ]);
  };
  const pod = async (name: string) => {
    const res = await labApi<LabPod>(lab, 'GET', `/api/v1/namespaces/${ns}/pods/${name}`);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET pod ${ns}/${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const events = async (selector: Record<string, string>, inNs = ns) => {
    const fields = Object.entries(selector).map(([k, v]) => `involvedObject.${k}=${v}`).join(',');
    return (await get<{ items: LabEvent[] }>(`/api/v1/namespaces/${inNs}/events?fieldSelector=${encodeURIComponent(fields)}`)).items;
  };
  const createPod = (name: string, spec: Record<string, unknown>) =>
    create<LabPod>(`/api/v1/namespaces/${ns}/pods`, { metadata: { name }, spec: { nodeName: node, terminationGracePeriodSeconds: 1, ...spec } });
  const stop = async () => {
    const k = kubelet;
    if (!k) return null;
    if (opts.launcher && k.child.exitCode === null) await opts.launcher.stop();
    await stopClusterKubelet(k);
    return k.child.exitCode;
  };
  const spawnKubelet = (extraConfig: string[]) => spawnClusterKubelet({
    dir, endpoint: opts.endpoint, node, port, clientCa: lab.ca, extraConfig,
    kubeconfigArgs: [`--kubeconfig=${join(dir, 'node.kubeconfig')}`], ...(debugPort ? { debugAddress: `127.0.0.1:${debugPort}` } : {}),
    ...(opts.extraArgs ? { extraArgs: opts.extraArgs(dir) } : {}),
    ...(opts.env ? { env: opts.env() } : {}),
    ...(opts.launcher ? { wrap: opts.launcher.wrap } : {}),
  });
  const restart = async (extraConfig: string[] = opts.extraConfig?.(dir) ?? []) => {
    await stop();
    kubelet = spawnKubelet(extraConfig);
  };
  const nodeObject = () => get<LabNodeObject>(`/api/v1/nodes/${node}`);
  const kubeletClient = { cert: readFileSync(join(lab.dir, 'pki', 'apiserver-kubelet-client.crt')), key: readFileSync(join(lab.dir, 'pki', 'apiserver-kubelet-client.key')) };
  const kubeletGet = (path: string) => httpsRequest(port, path, { auth: kubeletClient });

  // A pod is admitted only once the namespace has its default ServiceAccount, and its token volume
  // (added by that admission) mounts only once the root CA ConfigMap is published.
  await create('/api/v1/namespaces', { metadata: { name: ns } });
  await until(`${ns}'s default ServiceAccount and kube-root-ca.crt`, async () =>
    (await labApi(lab, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200
    && (await labApi(lab, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status === 200, 30_000);
  writeFileSync(join(dir, 'node.kubeconfig'), await runScript('bash', [join(lab.scripts, 'node-kubeconfig.sh'), node], scriptEnv(lab.dir), 30_000));
  if (opts.resolvable) appendFileSync(HOSTS, `${hostsLine}\n`);
  opts.prepare?.(dir);
  kubelet = spawnKubelet(opts.extraConfig?.(dir) ?? []);

  const dispose = async () => {
    if (kubelet && kubelet.child.exitCode === null) {
      // Deleted while the kubelet runs, its pods go as they would in a cluster; force-deleted after.
      await labApi(lab, 'DELETE', `/api/v1/namespaces/${ns}/pods`, { gracePeriodSeconds: 1 });
      await until(`every pod of ${ns} gone`, async () => (await get<{ items: unknown[] }>(`/api/v1/namespaces/${ns}/pods`)).items.length === 0, 30_000, kubelet.stderr)
        .catch((err: unknown) => console.error(err));
    }
    await stop();
    await labApi(lab, 'DELETE', `/api/v1/namespaces/${ns}/pods`, { gracePeriodSeconds: 0 });
    await labApi(lab, 'DELETE', `/api/v1/namespaces/${ns}`);
    // A stopped kubelet's Node stays Ready for the node controller's grace period: gone, nothing more is put on it.
    await labApi(lab, 'DELETE', `/api/v1/nodes/${node}`);
    if (opts.resolvable) writeFileSync(HOSTS, readFileSync(HOSTS, 'utf8').split('\n').filter((l) => l !== hostsLine).join('\n'));
    // Embedded-runtime pods outlive the kubelet, as containerd's do.
    await removePods({ endpoint: opts.endpoint, rootDir: join(dir, 'root') });
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true });
  };

  const untilProxied = async (podName: string) => {
    await whileUp(`the API server's proxy to reach ${node} for ${podName}'s log`, async () =>
      (await runKubectl(lab.kubectl, lab.adminKubeconfig, ['-n', ns, 'logs', '--limit-bytes=1', podName])).code === 0, 15_000);
  };

  return { lab, node, ns, dir, port, debugPort, kubelet: () => kubelet!, whileUp, get, create, nodeObject, kubeletGet, pod, events, untilProxied, createPod, stop, restart, dispose };
}
