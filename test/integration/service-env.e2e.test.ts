/**
 * Service environment variables end to end, in cluster mode on the real control plane (kube-lab.ts),
 * on the embedded runtime and on containerd (KUBELET_IT_CRI): the real API server allocates the
 * Services' cluster IPs, and a pod of the node's namespace prints its environment. It sees its
 * namespace's Service with its named ports and link variables, not a headless one nor another
 * namespace's; its own `env` wins and `$(VAR)` sees the Service variables. A pod with
 * enableServiceLinks: false sees the master Service only (whose variables in a pod placed by the
 * scheduler real-control-plane.e2e.test.ts checks). A container without limits gets the Node's
 * allocatable for its limits.cpu / limits.memory resourceFieldRef variables.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const PRINT_ENV = ['sh', '-c', 'env | sort; echo END-OF-ENV'];

type Service = { spec: { clusterIP: string } };

function envOf(log: string): Record<string, string> {
  return Object.fromEntries(log.split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `Service variables on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let other = '';
  let cartIp = '';
  let masterIp = '';

  /** The container's log lines (the CRI log format's time, stream and tag taken off). */
  const containerLog = (name: string, uid: string) => {
    const base = join(n.dir, 'logs', `${n.ns}_${name}_${uid}`, 'c');
    if (!existsSync(base)) return '';
    return readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('').split('\n').map((l) => l.split(' ').slice(3).join(' ')).join('\n');
  };
  const runPod = async (name: string, spec: Record<string, unknown>): Promise<Record<string, string>> => {
    await n.createPod(name, { restartPolicy: 'Never', ...spec });
    const pod = await n.whileUp(`${name} Succeeded`, async () => {
      const p = await n.pod(name);
      return p?.status?.phase === 'Succeeded' ? p : undefined;
    }, 60_000);
    const log = await n.whileUp(`${name}'s environment in its log`, () => {
      const text = containerLog(name, pod.metadata.uid);
      return text.includes('END-OF-ENV') ? text : undefined;
    }, 10_000);
    return envOf(log);
  };

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-se-${rt.name}`, endpoint: rt.endpoint });
    other = `${n.ns}-other`;
    const service = (ns: string, name: string, spec: Record<string, unknown>) => n.create<Service>(`/api/v1/namespaces/${ns}/services`, { metadata: { name }, spec });
    cartIp = (await service(n.ns, 'cart-api', { ports: [{ name: 'http', port: 80 }, { name: 'grpc', port: 9000 }] })).spec.clusterIP;
    await service(n.ns, 'peers', { clusterIP: 'None', ports: [{ port: 7000 }] });
    await n.create('/api/v1/namespaces', { metadata: { name: other } });
    await service(other, 'billing', { ports: [{ port: 80 }] });
    masterIp = (await n.get<Service>('/api/v1/namespaces/default/services/kubernetes')).spec.clusterIP;
  }, 120_000);

  afterAll(async () => {
    if (other) await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${other}`);
    await n?.dispose();
  }, 120_000);

  it('a pod sees its namespace\'s Service with named ports and link variables, not a headless one nor another namespace\'s, under its own env', async () => {
    expect(cartIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const env = await runPod('linked', {
      containers: [{
        name: 'c', image: BUSYBOX, command: PRINT_ENV,
        env: [{ name: 'CART_API_SERVICE_PORT', value: 'mine' }, { name: 'CART_URL', value: 'http://$(CART_API_SERVICE_HOST):$(CART_API_SERVICE_PORT_HTTP)' }],
      }],
    });
    expect(env).toMatchObject({
      CART_API_SERVICE_HOST: cartIp,
      CART_API_SERVICE_PORT: 'mine',
      CART_API_SERVICE_PORT_HTTP: '80',
      CART_API_SERVICE_PORT_GRPC: '9000',
      CART_API_PORT: `tcp://${cartIp}:80`,
      CART_API_PORT_80_TCP: `tcp://${cartIp}:80`,
      CART_API_PORT_9000_TCP: `tcp://${cartIp}:9000`,
      CART_API_PORT_9000_TCP_PROTO: 'tcp',
      CART_API_PORT_9000_TCP_PORT: '9000',
      CART_API_PORT_9000_TCP_ADDR: cartIp,
      CART_URL: `http://${cartIp}:80`,
      KUBERNETES_SERVICE_HOST: masterIp,
    });
    expect(Object.keys(env).filter((k) => k.startsWith('PEERS_') || k.startsWith('BILLING_'))).toEqual([]);
  }, 90_000);

  it('a pod with enableServiceLinks: false sees the master Service only', async () => {
    const env = await runPod('unlinked', { enableServiceLinks: false, containers: [{ name: 'c', image: BUSYBOX, command: PRINT_ENV }] });
    expect(env).toMatchObject({ KUBERNETES_SERVICE_HOST: masterIp, KUBERNETES_SERVICE_PORT: '443' });
    expect(Object.keys(env).filter((k) => k.startsWith('CART_API_'))).toEqual([]);
  }, 90_000);

  it('a container without limits gets the Node\'s allocatable for limits.cpu and limits.memory (Downward API)', async () => {
    const resource = (name: string, res: string) => ({ name, valueFrom: { resourceFieldRef: { resource: res } } });
    const env = await runPod('limits', {
      containers: [{ name: 'c', image: BUSYBOX, command: PRINT_ENV, env: [resource('CPU_LIMIT', 'limits.cpu'), resource('MEMORY_LIMIT', 'limits.memory')] }],
    });
    const { cpu, memory } = (await n.nodeObject()).status?.allocatable ?? {};
    // What the e2e spec compares: whole cores rounded up, and bytes.
    const cores = cpu!.endsWith('m') ? Math.ceil(Number(cpu!.slice(0, -1)) / 1000) : Number(cpu);
    const units: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
    const [, digits, unit] = /^(\d+)(Ki|Mi|Gi)?$/.exec(memory ?? '') ?? [];
    expect(Number(env.CPU_LIMIT)).toBeGreaterThan(0);
    expect(env).toMatchObject({ CPU_LIMIT: String(cores), MEMORY_LIMIT: String(Number(digits) * (unit ? units[unit]! : 1)) });
  }, 90_000);
});
