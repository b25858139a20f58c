/**
 * What a container sees of itself, as upstream e2e specs check it, in cluster mode on the real
 * control plane (kube-lab.ts), on the embedded runtime and on containerd (KUBELET_IT_CRI):
 * - a host-network pod's downward API variables: its status.podIP(s) are the node's IPs, known
 *   before any status was written, equal to status.hostIP(s) and to what the API then says;
 * - emptyDir modes and owners, from `stat` in the container: 0777 on disk, the tmpfs root's 1777
 *   in memory, each with setgid and the pod's group under an fsGroup (Go's SetVolumeOwnership).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `a container's view of itself on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;

  /** Runs a one-container pod to Succeeded; the pod and its container's output. */
  const runPod = async (name: string, spec: Record<string, unknown>): Promise<{ pod: LabPod; out: string }> => {
    await n.createPod(name, { restartPolicy: 'Never', ...spec });
    const pod = await n.whileUp(`${name} Succeeded`, async () => {
      const p = await n.pod(name);
      if (p?.status?.phase === 'Failed') throw new Error(`${name} Failed: ${JSON.stringify(p.status)}`);
      return p?.status?.phase === 'Succeeded' ? p : undefined;
    }, 60_000);
    const out = await n.whileUp(`${name}'s output`, async () => {
      const got = await n.kubeletGet(`/containerLogs/${n.ns}/${name}/c`);
      return got.status === 200 && got.body.includes('END') ? got.body : undefined;
    }, 10_000);
    return { pod, out };
  };

  beforeAll(async () => {
    n = await startLabNode({ name: `kts-sv-${rt.name}`, endpoint: rt.endpoint });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('a host-network pod\'s status.podIP and podIPs are the node\'s IPs, as its status.hostIP, and the API says so too', async () => {
    const field = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
    // The upstream spec's check: `${POD_IP:?}` fails the container when the variable is empty.
    const script = 'echo "POD_IP=${POD_IP:?} POD_IPS=${POD_IPS:?} HOST_IP=${HOST_IP:?} NODE=${NODE:?} SA=${SA:?}"; echo END';
    const { pod, out } = await runPod('host-net', {
      hostNetwork: true,
      containers: [{
        name: 'c', image: BUSYBOX, command: ['sh', '-c', script],
        env: [field('POD_IP', 'status.podIP'), field('POD_IPS', 'status.podIPs'), field('HOST_IP', 'status.hostIP'), field('NODE', 'spec.nodeName'), field('SA', 'spec.serviceAccountName')],
      }],
    });
    const status = pod.status as { hostIP?: string; podIP?: string; podIPs?: { ip: string }[] };
    expect(status.hostIP).toMatch(/^[\d.:a-f]+$/);
    expect(status.podIP).toBe(status.hostIP);
    const ips = (status.podIPs ?? []).map((p) => p.ip).join(',');
    expect(out).toContain(`POD_IP=${status.hostIP} POD_IPS=${ips} HOST_IP=${status.hostIP} NODE=${n.node} SA=default`);
  }, 90_000);

  it('emptyDir volumes have Go\'s modes and owners: 0777 on disk, the tmpfs root\'s 1777 in memory, setgid and the group under an fsGroup', async () => {
    const show = (dir: string) => `echo "${dir} $(stat -c '%A %u %g' /v/${dir})"`;
    const volumes = [
      { name: 'disk', emptyDir: {} },
      { name: 'memory', emptyDir: { medium: 'Memory' } },
    ];
    const spec = (fsGroup?: number) => ({
      ...(fsGroup !== undefined ? { securityContext: { fsGroup } } : {}),
      containers: [{
        name: 'c', image: BUSYBOX, command: ['sh', '-c', `${show('disk')}; ${show('memory')}; echo END`],
        volumeMounts: volumes.map((v) => ({ name: v.name, mountPath: `/v/${v.name}` })),
      }],
      volumes,
    });
    const plain = await runPod('modes', spec());
    expect(plain.out).toContain('disk drwxrwxrwx 0 0');
    expect(plain.out).toContain('memory drwxrwxrwt 0 0');
    const grouped = await runPod('modes-fsgroup', spec(1001));
    expect(grouped.out).toContain('disk drwxrwsrwx 0 1001');
    expect(grouped.out).toContain('memory drwxrwsrwt 0 1001');
  }, 120_000);
});
