/**
 * The workloads the scheduler places on a node, as the real-control-plane e2e test and the side-by-side
 * bench both run them: a Deployment `web` of 3 (each pod prints the master Service's variables, what
 * client-go's in-cluster config reads, then sleeps), a DaemonSet `agent`, a Job `once` run to completion.
 * All kept on one node by a nodeSelector on its hostname label. The objects, the outcomes awaited and
 * what the pods must look like after; no vitest import, so the bench can use it.
 */
import { SLEEP_UNTIL_TERM } from './sleeper.js';
export const WORKLOAD_SLEEP = SLEEP_UNTIL_TERM;
/** What a web pod prints on the lab's control plane (the master Service is the range's first address). */
export const SERVICE_ENV_LINE = 'host=10.96.0.1 port=443';
export const WEB_REPLICAS = 3;

interface Condition { type: string; status: string }
export interface WorkloadPod {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status?: { phase?: string };
}

export const deploymentPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments/web`;
export const daemonSetPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
export const jobPath = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs/once`;
/** The namespace's pods, or those of one app (`web`, `agent`). */
export const podsPath = (ns: string, app?: string) => `/api/v1/namespaces/${ns}/pods${app ? `?labelSelector=app%3D${app}` : ''}`;
/** The Deployment's deletion as `kubectl delete` sends it: its ReplicaSet and pods removed by the garbage collector. */
export const DELETE_IN_BACKGROUND = { propagationPolicy: 'Background' };

/** The three objects to POST (collection path and body), each pod held to `hostname` and running `image`. */
export function workloadObjects(ns: string, image: string, hostname: string): { path: string; object: unknown }[] {
  const podSpec = (command: string, extra: Record<string, unknown> = {}) => ({
    nodeSelector: { 'kubernetes.io/hostname': hostname }, terminationGracePeriodSeconds: 1,
    containers: [{ name: 'main', image, command: ['sh', '-c', command] }], ...extra,
  });
  const template = (app: string, spec: unknown) => ({ selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec } });
  const printService = 'echo "host=$KUBERNETES_SERVICE_HOST port=$KUBERNETES_SERVICE_PORT"; ' + WORKLOAD_SLEEP;
  return [
    { path: `/apis/apps/v1/namespaces/${ns}/deployments`, object: { metadata: { name: 'web' }, spec: { replicas: WEB_REPLICAS, ...template('web', podSpec(printService)) } } },
    { path: `/apis/apps/v1/namespaces/${ns}/daemonsets`, object: { metadata: { name: 'agent' }, spec: template('agent', podSpec(WORKLOAD_SLEEP)) } },
    { path: `/apis/batch/v1/namespaces/${ns}/jobs`, object: { metadata: { name: 'once' }, spec: { backoffLimit: 0, template: { spec: podSpec('echo job done', { restartPolicy: 'Never' }) } } } },
  ];
}

export const deploymentAvailable = (d: { status?: { availableReplicas?: number } }) => d.status?.availableReplicas === WEB_REPLICAS;
export const daemonSetReady = (d: { status?: { numberReady?: number } }) => d.status?.numberReady === 1;
export const jobComplete = (j: { status?: { conditions?: Condition[] } }) =>
  j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true;

/** Where each workload's pods are and their phases, and what that must be once all three outcomes are in. */
export function placement(pods: WorkloadPod[]): Record<'web' | 'agent' | 'once', [string | undefined, string | undefined][]> {
  const of = (match: (p: WorkloadPod) => boolean) => pods.filter(match).map((p): [string | undefined, string | undefined] => [p.spec.nodeName, p.status?.phase]);
  return {
    web: of((p) => p.metadata.labels?.app === 'web'),
    agent: of((p) => p.metadata.labels?.app === 'agent'),
    once: of((p) => p.metadata.labels?.['job-name'] === 'once'),
  };
}
export function expectedPlacement(node: string): ReturnType<typeof placement> {
  return { web: Array.from({ length: WEB_REPLICAS }, () => [node, 'Running']), agent: [[node, 'Running']], once: [[node, 'Succeeded']] };
}

/** What a web pod wrote, from its CRI log file's text: a line is time, stream, tag, then the output. */
export function serviceEnvLine(criLog: string): string | undefined {
  const line = criLog.split('\n').find((l) => l.includes('host='));
  return line?.split(' ').slice(3).join(' ');
}
