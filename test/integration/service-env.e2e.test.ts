/**
 * Service environment variables end to end, in cluster mode against the test API server, on the
 * embedded runtime and on containerd (with KUBELET_IT_CRI): a pod of namespace `shop` prints its
 * environment. It sees the master Service (KUBERNETES_SERVICE_HOST/PORT, what client-go's in-cluster
 * configuration reads) and its namespace's Service with its named ports and link variables, not a
 * headless one nor another namespace's; its own `env` wins and `$(VAR)` sees the Service variables.
 * A pod with enableServiceLinks: false sees the master Service only. A container without limits
 * gets the Node's allocatable for its limits.cpu / limits.memory resourceFieldRef variables.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { startClusterKubelet, stopClusterKubelet, type ClusterKubelet } from '../support/cluster-kubelet.js';
import { freePort, removePods, until } from '../support/daemon.js';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';

const NODE = 'node-svc-env';
const IMAGE = 'kubelet-ts.local/busybox:1.0';
const PRINT_ENV = ['sh', '-c', 'env | sort; echo END-OF-ENV'];

type PodObject = { metadata?: { uid?: string }; status?: { phase?: string } };

/** The container's log lines (the CRI log format's time, stream and tag taken off). */
function containerLog(dir: string, name: string, uid: string): string {
  const base = join(dir, 'logs', `shop_${name}_${uid}`, 'c');
  if (!existsSync(base)) return '';
  return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('')
    .split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
}

function envOf(log: string): Record<string, string> {
  return Object.fromEntries(log.split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

for (const endpoint of ['embedded', containerdEndpoint()]) describeNeeding(partForEndpoint(endpoint), `Service variables on the ${endpoint === 'embedded' ? 'embedded' : 'containerd'} runtime`, () => {
  let dir: string;
  let api: TestApiServer;
  let kubelet: ClusterKubelet | null = null;
  const stderr = () => kubelet?.stderr() ?? '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-svc-env-'));
    api = await startTestApiServer({ tls: true, kubeletDialHost: '127.0.0.1' });
    api.store.create('namespaces', { metadata: { name: 'shop' } });
    api.store.create('namespaces', { metadata: { name: 'other' } });
    api.store.create('services', { metadata: { name: 'cart-api', namespace: 'shop' }, spec: { clusterIP: '10.96.7.7', ports: [{ name: 'http', port: 80 }, { name: 'grpc', port: 9000 }] } });
    api.store.create('services', { metadata: { name: 'peers', namespace: 'shop' }, spec: { clusterIP: 'None', ports: [{ port: 7000 }] } });
    api.store.create('services', { metadata: { name: 'billing', namespace: 'other' }, spec: { clusterIP: '10.96.8.8', ports: [{ port: 80 }] } });
    kubelet = await startClusterKubelet(dir, api, endpoint, NODE, await freePort());
  }, 60_000);

  afterAll(async () => {
    await stopClusterKubelet(kubelet);
    await api.close();
    await removePods({ endpoint, rootDir: join(dir, 'root'), select: (n) => n === 'linked' || n === 'unlinked' || n === 'limits' });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const runPod = async (name: string, spec: Record<string, unknown>): Promise<Record<string, string>> => {
    api.store.create('pods', { metadata: { name, namespace: 'shop' }, spec: { nodeName: NODE, restartPolicy: 'Never', terminationGracePeriodSeconds: 1, ...spec } } as never, 'shop');
    const pod = await until(`${name} Succeeded`, () => {
      const p = api.store.get('pods', 'shop', name) as PodObject | undefined;
      return p?.status?.phase === 'Succeeded' ? p : undefined;
    }, 60_000, stderr);
    const uid = pod.metadata!.uid!;
    const log = await until(`${name}'s environment in its log`, () => {
      const text = containerLog(dir, name, uid);
      return text.includes('END-OF-ENV') ? text : undefined;
    }, 10_000, stderr);
    return envOf(log);
  };

  it('a pod sees the master Service and its namespace\'s Service, under its own env', async () => {
    const env = await runPod('linked', {
      containers: [{
        name: 'c', image: IMAGE, command: PRINT_ENV,
        env: [{ name: 'CART_API_SERVICE_PORT', value: 'mine' }, { name: 'API_URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' }],
      }],
    });
    expect(env).toMatchObject({
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443',
      KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
      CART_API_SERVICE_HOST: '10.96.7.7',
      CART_API_SERVICE_PORT: 'mine',
      CART_API_SERVICE_PORT_HTTP: '80',
      CART_API_SERVICE_PORT_GRPC: '9000',
      CART_API_PORT: 'tcp://10.96.7.7:80',
      CART_API_PORT_9000_TCP: 'tcp://10.96.7.7:9000',
      CART_API_PORT_9000_TCP_PROTO: 'tcp',
      API_URL: 'https://10.96.0.1:443',
    });
    expect(Object.keys(env).filter((k) => k.startsWith('PEERS_') || k.startsWith('BILLING_'))).toEqual([]);
  }, 90_000);

  it('a pod with enableServiceLinks: false sees the master Service only', async () => {
    const env = await runPod('unlinked', { enableServiceLinks: false, containers: [{ name: 'c', image: IMAGE, command: PRINT_ENV }] });
    expect(env.KUBERNETES_SERVICE_HOST).toBe('10.96.0.1');
    expect(env.KUBERNETES_SERVICE_PORT).toBe('443');
    expect(Object.keys(env).filter((k) => k.startsWith('CART_API_'))).toEqual([]);
  }, 90_000);

  it('a container without limits gets the Node\'s allocatable for limits.cpu and limits.memory (Downward API)', async () => {
    const resource = (name: string, res: string) => ({ name, valueFrom: { resourceFieldRef: { resource: res } } });
    const env = await runPod('limits', {
      containers: [{ name: 'c', image: IMAGE, command: PRINT_ENV, env: [resource('CPU_LIMIT', 'limits.cpu'), resource('MEMORY_LIMIT', 'limits.memory')] }],
    });
    const node = api.store.get('nodes', undefined, NODE) as unknown as { status: { allocatable: { cpu: string; memory: string } } };
    const { cpu, memory } = node.status.allocatable;
    // What the e2e spec compares: whole cores rounded up, and bytes.
    const cores = cpu.endsWith('m') ? Math.ceil(Number(cpu.slice(0, -1)) / 1000) : Number(cpu);
    const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
    const [, digits, unit] = /^(\d+)(Ki|Mi|Gi)?$/.exec(memory) ?? [];
    expect(Number(env.CPU_LIMIT)).toBeGreaterThan(0);
    expect(env).toMatchObject({ CPU_LIMIT: String(cores), MEMORY_LIMIT: String(Number(digits) * (unit ? units[unit]! : 1)) });
  }, 90_000);
});
