/**
 * The churn bench's waves (`npm run bench -- churn`): what a CI runner or batch node sees, many pods
 * coming and going, each wave placed on the node by the real scheduler: a Job of short pods run to
 * completion, a Deployment scaled up then back to 0 (its pods with a ConfigMap and an emptyDir
 * volume and exec readiness and liveness probes), and bare pods that fail. A wave ends when all its
 * pods have run and are gone from the API: nothing is left for the next but what the kubelet keeps.
 */
import { performance } from 'node:perf_hooks';
import { labApi } from '../test/support/kube-lab-up.js';
import { api, until, type Lab } from './sidebyside-api.js';
import type { StartedKubelet } from './sidebyside-kubelets.js';

export const WAVE = { jobPods: 40, jobParallelism: 20, deploymentReplicas: 30, failingPods: 10 };
/** Pods one wave runs to their end. */
export const PODS_PER_WAVE = WAVE.jobPods + WAVE.deploymentReplicas + WAVE.failingPods;
const WAVE_TIMEOUT_MS = 600_000;
const SLEEPER = ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"];

export interface ChurnPlace { lab: Lab; namespace: string; node: string; image: string }

const podBase = (p: ChurnPlace) => ({ nodeSelector: { 'kubernetes.io/hostname': p.node }, terminationGracePeriodSeconds: 1 });
const container = (p: ChurnPlace, command: string[], extra: Record<string, unknown> = {}) =>
  ({ name: 'main', image: p.image, imagePullPolicy: 'Never', command, ...extra });

/** The ConfigMap and the Deployment (at 0 replicas) every wave scales. */
export async function createChurnFixtures(p: ChurnPlace): Promise<void> {
  const ns = p.namespace;
  await api(p.lab, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'churn-config' }, data: { ready: 'yes' } });
  const probe = (path: string, periodSeconds: number) => ({ exec: { command: ['cat', path] }, periodSeconds });
  await api(p.lab, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    metadata: { name: 'churn-web' },
    spec: {
      replicas: 0, selector: { matchLabels: { app: 'churn-web' } },
      template: {
        metadata: { labels: { app: 'churn-web' } },
        spec: {
          ...podBase(p),
          volumes: [{ name: 'config', configMap: { name: 'churn-config' } }, { name: 'scratch', emptyDir: {} }],
          containers: [container(p, SLEEPER, {
            volumeMounts: [{ name: 'config', mountPath: '/config' }, { name: 'scratch', mountPath: '/scratch' }],
            readinessProbe: probe('/config/ready', 2), livenessProbe: probe('/config/ready', 5),
          })],
        },
      },
    },
  });
}

/**
 * A merge patch of the scale subresource: no read and write back, which lost a race with the
 * Deployment controller's own update of a new Deployment (a 409) and failed a whole turn.
 */
async function scale(p: ChurnPlace, replicas: number): Promise<void> {
  const path = `/apis/apps/v1/namespaces/${p.namespace}/deployments/churn-web/scale`;
  const res = await labApi(p.lab, 'PATCH', path, { spec: { replicas } }, 'application/merge-patch+json');
  if (res.status !== 200) throw new Error(`PATCH ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
}

interface Pod { metadata: { name: string; labels?: Record<string, string> }; status?: { phase?: string } }
const podsOf = async (p: ChurnPlace) => (await api<{ items: Pod[] }>(p.lab, 'GET', `/api/v1/namespaces/${p.namespace}/pods`)).items;

export interface WaveResult {
  /** Pods the wave ran to their end (all it made, retries included). */
  pods: number;
  /** Creation → every pod run (Job complete, Deployment available, failing pods Failed), in ms. */
  runMs: number;
  /** The deletions → no pod left in the API, in ms. */
  goneMs: number;
}

/** One wave on the node; throws when it does not finish within 10 minutes or the kubelet exits. */
export async function runWave(p: ChurnPlace, kubelet: StartedKubelet, index: number): Promise<WaveResult> {
  const ns = p.namespace;
  const job = `churn-job-${index}`;
  const t0 = performance.now();
  await api(p.lab, 'POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
    metadata: { name: job },
    spec: {
      completions: WAVE.jobPods, parallelism: WAVE.jobParallelism, backoffLimit: WAVE.jobPods,
      template: { spec: { ...podBase(p), restartPolicy: 'Never', containers: [container(p, ['sh', '-c', 'sleep 1'])] } },
    },
  });
  await scale(p, WAVE.deploymentReplicas);
  await Promise.all(Array.from({ length: WAVE.failingPods }, (_, i) => api(p.lab, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    metadata: { name: `churn-fail-${index}-${i}`, labels: { churn: 'fail' } },
    spec: { ...podBase(p), restartPolicy: 'Never', containers: [container(p, ['sh', '-c', 'sleep 1; exit 3'])] },
  })));
  await until(kubelet, `wave ${index} run`, async () => {
    const [j, d, pods] = await Promise.all([
      api<{ status?: { succeeded?: number } }>(p.lab, 'GET', `/apis/batch/v1/namespaces/${ns}/jobs/${job}`),
      api<{ status?: { availableReplicas?: number } }>(p.lab, 'GET', `/apis/apps/v1/namespaces/${ns}/deployments/churn-web`),
      podsOf(p),
    ]);
    const failed = pods.filter((x) => x.metadata.labels?.churn === 'fail' && x.status?.phase === 'Failed').length;
    return j.status?.succeeded === WAVE.jobPods && d.status?.availableReplicas === WAVE.deploymentReplicas && failed === WAVE.failingPods;
  }, WAVE_TIMEOUT_MS, 1000);
  const runMs = performance.now() - t0;
  const pods = (await podsOf(p)).length;
  const t1 = performance.now();
  await api(p.lab, 'DELETE', `/apis/batch/v1/namespaces/${ns}/jobs/${job}`, { propagationPolicy: 'Background' });
  await scale(p, 0);
  await api(p.lab, 'DELETE', `/api/v1/namespaces/${ns}/pods?labelSelector=churn%3Dfail`);
  await until(kubelet, `wave ${index} gone`, async () => (await labApi<{ items: Pod[] }>(p.lab, 'GET', `/api/v1/namespaces/${ns}/pods`)).body.items.length === 0,
    WAVE_TIMEOUT_MS, 1000);
  return { pods, runMs, goneMs: performance.now() - t1 };
}
