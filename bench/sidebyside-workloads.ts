/**
 * The real-control-plane e2e test's scheduled workloads (test/support/scheduled-workloads.ts) in a
 * side-by-side turn, on the turn's node: a Deployment of 3, a DaemonSet and a Job placed by the
 * scheduler, a web pod's log showing the master Service's variables, and the Deployment's deletion
 * taking its pods off the API and out of containerd. Each outcome is awaited with a timeout and
 * recorded as passed or failed, with the time to it and the reason: never thrown, so a kubelet that
 * fails one still has the others checked and the run goes on.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { CriClient } from '../src/ports/cri.js';
import {
  daemonSetPath, daemonSetReady, DELETE_IN_BACKGROUND, deploymentAvailable, deploymentPath, expectedPlacement, jobComplete, jobPath,
  placement, podsPath, SERVICE_ENV_LINE, serviceEnvLine, workloadObjects, type WorkloadPod,
} from '../test/support/scheduled-workloads.js';
import { api, until, type Lab } from './sidebyside-api.js';
import type { StartedKubelet } from './sidebyside-kubelets.js';
import { round } from './stats.js';

/** The checks, in the order they are printed (each name fits the bench's 32-column key). */
export const WORKLOAD_CHECKS = [
  'Deployment 3/3 available', 'DaemonSet 1/1 ready', 'Job complete', 'log: host=10.96.0.1 port=443',
  'deleted → web pods off the API', 'deleted → none running in CRI',
] as const;
export type WorkloadCheckName = typeof WORKLOAD_CHECKS[number];
/** Passed or not; ms from the objects' creation (the deletion's two: from the DELETE); why not. */
export interface WorkloadCheck { ok: boolean; ms: number; reason?: string }
export type WorkloadResults = Partial<Record<WorkloadCheckName, WorkloadCheck>>;

export interface WorkloadOptions { lab: Lab; node: string; namespace: string; image: string; cri: CriClient }

type Getter = <T>(path: string) => Promise<T>;
/** A controller's outcome: the check, what is awaited, when it is reached (read from its object), whose pods must then be placed. */
const outcome = <T>(check: WorkloadCheckName, what: string, path: (ns: string) => string, done: (object: T) => boolean, key: 'web' | 'agent' | 'once') =>
  ({ check, what, key, reached: async (ns: string, get: Getter) => done(await get<T>(path(ns))) });
const OUTCOMES = [
  outcome('Deployment 3/3 available', 'the Deployment available with 3 replicas', deploymentPath, deploymentAvailable, 'web'),
  outcome('DaemonSet 1/1 ready', 'the DaemonSet ready on the node', daemonSetPath, daemonSetReady, 'agent'),
  outcome('Job complete', 'the Job complete', jobPath, jobComplete, 'once'),
];

const POD_LABEL = 'io.kubernetes.pod.name';
const NS_LABEL = 'io.kubernetes.pod.namespace';

export async function scheduledWorkloads(o: WorkloadOptions, kubelet: StartedKubelet): Promise<WorkloadResults> {
  const { lab, namespace: ns } = o;
  const out: WorkloadResults = {};
  const check = async (name: WorkloadCheckName, since: number, work: () => Promise<void>) => {
    try {
      await work();
      out[name] = { ok: true, ms: round(performance.now() - since, 0) };
    } catch (err) {
      out[name] = { ok: false, ms: round(performance.now() - since, 0), reason: (err instanceof Error ? err.message : String(err)).split('\n')[0]! };
    }
  };
  const get = <T>(path: string) => api<T>(lab, 'GET', path);
  const pods = async (app?: string) => (await get<{ items: WorkloadPod[] }>(podsPath(ns, app))).items;
  /** The pods of `key` where the e2e test wants them, once its outcome is in. */
  const placed = async (key: keyof ReturnType<typeof placement>) => {
    const [found, want] = [JSON.stringify(placement(await pods())[key]), JSON.stringify(expectedPlacement(o.node)[key])];
    if (found !== want) throw new Error(`${key}'s pods [node, phase]: ${found}, not ${want}`);
  };
  const { cri } = o;
  try {
    const t0 = performance.now();
    const created = (async () => {
      for (const { path, object } of workloadObjects(ns, o.image, o.node)) await api(lab, 'POST', path, object);
    })();
    await Promise.all([
      ...OUTCOMES.map(({ check: name, what, reached, key }) => check(name, t0, async () => {
        await created;
        await until(kubelet, what, () => reached(ns, get), 120_000, 200);
        await placed(key);
      })),
      check('log: host=10.96.0.1 port=443', t0, async () => {
        await created;
        let line: string | undefined;
        await until(kubelet, "a web pod's output", async () => (line = await webPodLine(cri, ns)) !== undefined, 120_000, 200);
        if (line !== SERVICE_ENV_LINE) throw new Error(`a web pod wrote "${line}", not "${SERVICE_ENV_LINE}"`);
      }),
    ]);
    await deleteDeployment(o, kubelet, check, pods);
  } finally {
    // Nothing of them may outlive the turn: the next node is another, but the same control plane.
    for (const path of [deploymentPath(ns), daemonSetPath(ns), jobPath(ns)]) {
      await api(lab, 'DELETE', path, DELETE_IN_BACKGROUND, [200, 202, 404]).catch(() => undefined);
    }
  }
  return out;
}

async function deleteDeployment(
  o: WorkloadOptions, kubelet: StartedKubelet,
  check: (name: WorkloadCheckName, since: number, work: () => Promise<void>) => Promise<void>,
  pods: (app?: string) => Promise<WorkloadPod[]>,
): Promise<void> {
  const names = new Set((await pods('web').catch(() => [])).map((p) => p.metadata.name));
  const d0 = performance.now();
  const deleted = api(o.lab, 'DELETE', deploymentPath(o.namespace), DELETE_IN_BACKGROUND);
  await Promise.all([
    check('deleted → web pods off the API', d0, async () => {
      await deleted;
      await until(kubelet, "the Deployment's pods gone from the API", async () => (await pods('web')).length === 0, 90_000, 100);
      const agent = (await pods('agent')).map((p) => p.status?.phase);
      if (JSON.stringify(agent) !== '["Running"]') throw new Error(`the DaemonSet's pod phases after: ${JSON.stringify(agent)}, not ["Running"]`);
    }),
    // As the kubelet's /runningpods/ counts them: a ready sandbox or a running container.
    check('deleted → none running in CRI', d0, async () => {
      await deleted;
      if (names.size === 0) throw new Error('no web pod to follow');
      await until(kubelet, "the Deployment's pods stopped in containerd", async () => {
        const [sandboxes, containers] = await Promise.all([o.cri.runtime.listPodSandbox(), o.cri.runtime.listContainers()]);
        const theirs = (labels: Record<string, string> | undefined) => labels?.[NS_LABEL] === o.namespace && names.has(labels[POD_LABEL] ?? '');
        return !sandboxes.some((s) => s.state === 'SANDBOX_READY' && theirs(s.labels)) && !containers.some((c) => c.state === 'CONTAINER_RUNNING' && theirs(c.labels));
      }, 120_000, 100);
    }),
  ]);
}

/** What a web pod wrote, from its container's CRI log file (the path containerd reports, whichever kubelet chose it). */
async function webPodLine(cri: CriClient, ns: string): Promise<string | undefined> {
  const containers = (await cri.runtime.listContainers()).filter((c) => c.labels[NS_LABEL] === ns && (c.labels[POD_LABEL] ?? '').startsWith('web-'));
  for (const c of containers) {
    const path = (await cri.runtime.containerStatus(c.id)).status?.log_path;
    let text = '';
    try {
      text = path ? readFileSync(path, 'utf8') : '';
    } catch {
      continue;
    }
    const line = serviceEnvLine(text);
    if (line !== undefined) return line;
  }
  return undefined;
}
