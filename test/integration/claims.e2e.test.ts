/**
 * Persistent volume claims end to end, in cluster mode on the real control plane (kube-lab.ts) and
 * containerd (KUBELET_IT_CRI), one kubelet for every case: the PV controller binds claims, the
 * scheduler binds WaitForFirstConsumer claims to local PVs, the StatefulSet controller makes claims
 * from volumeClaimTemplates and the ephemeral-volume controller a generic ephemeral volume's claim.
 * - A StatefulSet of 2 on local PVs keeps each pod's data when a pod is deleted and recreated.
 * - A hostPath PV is shared by two pods in turn: the first writes, the second reads.
 * - A generic ephemeral volume is bound and mounted.
 * - A kubelet restart under a running pod with a claim restarts no container, and its mount stays.
 * - A claim not bound keeps its pod ContainerCreating with Go's FailedMount message, until a PV binds.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { untilChildDone } from '../support/kubelet-journal.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const NAME = 'kts-claims';
const LOCAL_CLASS = `${NAME}-local`;

interface Claim { metadata: { name: string }; spec: { volumeName?: string }; status?: { phase?: string } }

describeNeeding(kubeLabPartFor(endpoint), 'persistent volume claims on the real control plane, containerd', () => {
  let n: LabNode;
  let pvRoot = '';
  const pvNames: string[] = [];

  const hostAffinity = () => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n.node] }] }] } });
  /** A PV (cluster-scoped, so named after the node) with its directory made under the test's directory. */
  const createPv = async (suffix: string, spec: Record<string, unknown>) => {
    const name = `${NAME}-${suffix}`;
    pvNames.push(name);
    await n.create('/api/v1/persistentvolumes', { metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', ...spec } });
    return name;
  };
  const localPv = async (suffix: string) => {
    const path = join(pvRoot, suffix);
    mkdirSync(path, { recursive: true });
    await createPv(suffix, { storageClassName: LOCAL_CLASS, local: { path }, nodeAffinity: hostAffinity() });
    return path;
  };
  const claim = (name: string) => n.get<Claim>(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims/${name}`);
  const pvPath = async (claimName: string) => {
    const pv = await n.get<{ spec: { local?: { path: string }; hostPath?: { path: string } } }>(`/api/v1/persistentvolumes/${(await claim(claimName)).spec.volumeName}`);
    return pv.spec.local?.path ?? pv.spec.hostPath?.path ?? '';
  };
  const phaseIs = (name: string, phase: string) => async () => {
    const p = await n.pod(name);
    return p?.status?.phase === phase ? p : undefined;
  };
  const running = (name: string) => async () => {
    const p = await n.pod(name);
    return p?.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
  };
  const containerLog = (pod: LabPod) => {
    const base = join(n.dir, 'logs', `${n.ns}_${pod.metadata.name}_${pod.metadata.uid}`, 'c');
    return existsSync(base) ? readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('') : '';
  };
  const mountPoints = () => readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4] ?? '');

  beforeAll(async () => {
    n = await startLabNode({ name: NAME, endpoint });
    pvRoot = join(n.dir, 'pvs');
    await n.create('/apis/storage.k8s.io/v1/storageclasses', {
      metadata: { name: LOCAL_CLASS }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer',
    });
  }, 120_000);

  afterAll(async () => {
    if (!n) return;
    await labApi(n.lab, 'DELETE', `/apis/apps/v1/namespaces/${n.ns}/statefulsets/web`);
    await n.dispose();
    for (const name of pvNames) await labApi(n.lab, 'DELETE', `/api/v1/persistentvolumes/${name}`);
    await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/storageclasses/${LOCAL_CLASS}`);
  }, 180_000);

  it('a StatefulSet of 2 on local PVs (WaitForFirstConsumer) keeps each pod\'s data when a pod is deleted and recreated', async () => {
    await localPv('local-a');
    await localPv('local-b');
    await n.create(`/apis/apps/v1/namespaces/${n.ns}/statefulsets`, {
      metadata: { name: 'web' },
      spec: {
        serviceName: 'web', replicas: 2, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            nodeSelector: { 'kubernetes.io/hostname': n.node }, terminationGracePeriodSeconds: 1, automountServiceAccountToken: false,
            containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', `echo "$HOSTNAME" >> /data/boots; ${SLEEP}`], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
          },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: LOCAL_CLASS, resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    const first = await n.whileUp('web-0 and web-1 running', async () => {
      const pods = await Promise.all(['web-0', 'web-1'].map((p) => running(p)()));
      return pods.every(Boolean) ? pods as LabPod[] : undefined;
    }, 90_000);
    expect((await claim('data-web-0')).status?.phase).toBe('Bound');
    const path0 = await pvPath('data-web-0');
    const path1 = await pvPath('data-web-1');
    expect([path0, path1].sort()).toEqual([join(pvRoot, 'local-a'), join(pvRoot, 'local-b')]);
    expect(readFileSync(join(path0, 'boots'), 'utf8')).toBe('web-0\n');
    expect(readFileSync(join(path1, 'boots'), 'utf8')).toBe('web-1\n');
    // Go reports only attachable volumes in use: local PVs never are.
    expect((await n.nodeObject() as { status?: { volumesInUse?: string[] } }).status?.volumesInUse ?? []).toEqual([]);
    // The volume is the local PV's bind mount under the pod's directory.
    expect(mountPoints()).toContain(join(n.dir, 'root', 'pods', first[0]!.metadata.uid, 'volumes', 'kubernetes.io~local-volume', (await claim('data-web-0')).spec.volumeName!));

    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/web-0`);
    await n.whileUp('web-0 recreated and running', async () => {
      const p = await running('web-0')();
      return p && p.metadata.uid !== first[0]!.metadata.uid ? p : undefined;
    }, 90_000);
    expect(readFileSync(join(path0, 'boots'), 'utf8')).toBe('web-0\nweb-0\n');
    expect(await pvPath('data-web-0')).toBe(path0);
    // The old pod's bind mount is gone, its data is not.
    expect(mountPoints().filter((p) => p.includes(first[0]!.metadata.uid))).toEqual([]);
  }, 180_000);

  it('a kubelet restart under a running pod with a claim restarts no container, and its mount stays', async () => {
    const before = (await n.pod('web-1'))!;
    const status = before.status!.containerStatuses![0]! as { containerID?: string; restartCount?: number };
    const mount = join(n.dir, 'root', 'pods', before.metadata.uid, 'volumes', 'kubernetes.io~local-volume', (await claim('data-web-1')).spec.volumeName!);
    expect(mountPoints()).toContain(mount);
    const restartedAt = Date.now();
    await n.restart();
    await n.whileUp('a Lease renewal after the restart', async () =>
      Date.parse((await n.get<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n.node}`)).spec?.renewTime ?? '') > restartedAt, 60_000);
    // The restarted kubelet's first sync of the pod (its journal is a file of its own, so from its
    // first record): its volumes set up again, its containers compared, none started or killed.
    const root = join(n.dir, 'root');
    const synced = await untilChildDone(root, 0, `pod:${before.metadata.uid}`, 'syncPod', 60_000, n.kubelet().stderr) as { ok: boolean; actions: { killPod: boolean; containersToStart: string[]; containersToKill: unknown[] } };
    expect(synced).toMatchObject({ ok: true, actions: { killPod: false, containersToStart: [], containersToKill: [] } });
    const after = (await n.pod('web-1'))!.status!.containerStatuses![0]! as { containerID?: string; restartCount?: number };
    expect(after.restartCount).toBe(0);
    expect(after.containerID).toBe(status.containerID);
    expect(mountPoints().filter((p) => p === mount)).toHaveLength(1);
    expect(readFileSync(join(await pvPath('data-web-1'), 'boots'), 'utf8')).toBe('web-1\n');
  }, 120_000);

  it('a hostPath PV is shared by two pods in turn: the first writes, is deleted, the second reads', async () => {
    const shared = join(pvRoot, 'shared');
    await createPv('host', { storageClassName: `${NAME}-manual`, hostPath: { path: shared, type: 'DirectoryOrCreate' } });
    await n.create(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims`, {
      metadata: { name: 'shared' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: `${NAME}-manual`, resources: { requests: { storage: '1Gi' } } },
    });
    await n.whileUp('the claim shared Bound', async () => (await claim('shared')).status?.phase === 'Bound', 60_000);
    const podWith = (name: string, script: string) => n.createPod(name, {
      restartPolicy: 'Never', automountServiceAccountToken: false,
      containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', script], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'shared' } }],
    });
    await podWith('writer', 'echo "from the writer" > /data/message');
    await n.whileUp('writer Succeeded', phaseIs('writer', 'Succeeded'), 60_000);
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/writer`);
    await n.whileUp('writer gone', async () => (await n.pod('writer')) === undefined || undefined, 60_000);
    await podWith('reader', 'cat /data/message');
    const reader = await n.whileUp('reader Succeeded', phaseIs('reader', 'Succeeded'), 60_000);
    const log = await n.whileUp('the reader\'s log', () => (containerLog(reader).includes('from the writer') ? containerLog(reader) : undefined), 10_000);
    expect(log).toContain('from the writer');
    expect(readFileSync(join(shared, 'message'), 'utf8')).toBe('from the writer\n');
  }, 150_000);

  it('a generic ephemeral volume gets its claim from the controller, bound to a local PV at scheduling', async () => {
    const path = await localPv('ephemeral');
    await n.create(`/api/v1/namespaces/${n.ns}/pods`, {
      metadata: { name: 'scratchy' },
      spec: {
        nodeSelector: { 'kubernetes.io/hostname': n.node }, restartPolicy: 'Never', terminationGracePeriodSeconds: 1, automountServiceAccountToken: false,
        containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', 'echo ephemeral > /scratch/made'], volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }],
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], storageClassName: LOCAL_CLASS, resources: { requests: { storage: '1Gi' } } } } } }],
      },
    });
    await n.whileUp('scratchy Succeeded', phaseIs('scratchy', 'Succeeded'), 90_000);
    expect((await claim('scratchy-scratch')).spec.volumeName).toBe(`${NAME}-ephemeral`);
    expect(readFileSync(join(path, 'made'), 'utf8')).toBe('ephemeral\n');
  }, 120_000);

  it('a claim not bound keeps the pod ContainerCreating with Go\'s FailedMount message, and it runs once a PV binds', async () => {
    await n.create(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims`, {
      metadata: { name: 'late' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: `${NAME}-late`, resources: { requests: { storage: '1Gi' } } },
    });
    await n.createPod('patient', {
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', SLEEP], volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'late' } }],
    });
    const message = `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[data]: error processing PVC ${n.ns}/late: PVC is not bound`;
    // The first reads may be refused while the Node authorizer's graph has not yet linked the new
    // pod to its claim (a FailedMount of its own): the one about the claim comes once it reads it.
    const event = await n.whileUp('the FailedMount event about the claim', async () =>
      (await n.events({ name: 'patient' })).find((e) => e.reason === 'FailedMount' && e.message === message), 60_000);
    expect(event.type).toBe('Warning');
    const waiting = (await n.pod('patient'))!;
    expect(waiting.status?.phase).toBe('Pending');
    expect(waiting.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');

    await createPv('late', { storageClassName: `${NAME}-late`, hostPath: { path: join(pvRoot, 'late'), type: 'DirectoryOrCreate' } });
    await n.whileUp('patient running once the PV bound', running('patient'), 90_000);
    expect((await claim('late')).status?.phase).toBe('Bound');
  }, 150_000);
});
