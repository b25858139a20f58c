/**
 * Raw block volumes end to end, in cluster mode on the real control plane (kube-lab.ts) and
 * containerd (KUBELET_IT_CRI): a 16 MiB file on a loop device is a local PV of volumeMode Block,
 * bound to a claim of volumeMode Block. A pod that maps it at /dev/xvda writes a marker with dd; the
 * kubelet's symlink under the pod's volumeDevices directory points at the loop device while it runs
 * and is gone once the pod is; a second pod reads the marker back from the device. A pod that puts
 * the Block claim in volumeMounts gets Go's FailedMount message.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const NAME = 'kts-block';
const PV = `${NAME}-disk`;
const MARKER = 'kts-block-marker';

describeNeeding(kubeLabPartFor(endpoint), 'raw block volumes on the real control plane, containerd', () => {
  let n: LabNode;
  let backing = '';
  let loop = '';

  const phaseIs = (name: string, phase: string) => async () => {
    const p = await n.pod(name);
    return p?.status?.phase === phase ? p : undefined;
  };
  const containerLog = (pod: LabPod) => {
    const base = join(n.dir, 'logs', `${n.ns}_${pod.metadata.name}_${pod.metadata.uid}`, 'c');
    return existsSync(base) ? readdirSync(base).map((f) => readFileSync(join(base, f), 'utf8')).join('') : '';
  };
  const mapLink = (podUid: string) => join(n.dir, 'root', 'pods', podUid, 'volumeDevices', 'kubernetes.io~local-volume', PV);
  const podWith = (name: string, script: string, use: Record<string, unknown>) => n.createPod(name, {
    restartPolicy: 'Never', terminationGracePeriodSeconds: 1, automountServiceAccountToken: false,
    containers: [{ name: 'c', image: BUSYBOX, command: ['sh', '-c', script], ...use }],
    volumes: [{ name: 'disk', persistentVolumeClaim: { claimName: 'disk' } }],
  });
  const asDevice = { volumeDevices: [{ name: 'disk', devicePath: '/dev/xvda' }] };
  const deleted = async (name: string) => {
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/${name}`);
    await n.whileUp(`${name} gone`, async () => (await n.pod(name)) === undefined || undefined, 60_000);
  };

  beforeAll(async () => {
    n = await startLabNode({ name: NAME, endpoint });
    backing = join(n.dir, 'disk.img');
    writeFileSync(backing, Buffer.alloc(16 * 1024 * 1024));
    loop = execFileSync('losetup', ['--find', '--show', backing], { encoding: 'utf8' }).trim();
    await n.create('/api/v1/persistentvolumes', {
      metadata: { name: PV },
      spec: {
        capacity: { storage: '16Mi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '', volumeMode: 'Block',
        local: { path: loop },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n.node] }] }] } },
      },
    });
    await n.create(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims`, {
      metadata: { name: 'disk' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', volumeName: PV, volumeMode: 'Block', resources: { requests: { storage: '16Mi' } } },
    });
    await n.whileUp('the claim disk Bound', async () =>
      (await n.get<{ status?: { phase?: string } }>(`/api/v1/namespaces/${n.ns}/persistentvolumeclaims/disk`)).status?.phase === 'Bound', 60_000);
  }, 120_000);

  afterAll(async () => {
    try {
      if (n) {
        await n.dispose();
        await labApi(n.lab, 'DELETE', `/api/v1/persistentvolumes/${PV}`);
      }
    } finally {
      if (loop !== '') execFileSync('losetup', ['-d', loop]);
    }
  }, 120_000);

  it('a pod maps the Block claim at /dev/xvda and writes to it; a second pod reads it back; the map goes with the pod', async () => {
    await podWith('writer', `printf ${MARKER} | dd of=/dev/xvda bs=16 count=1 conv=fsync && ${SLEEP}`, asDevice);
    const writer = await n.whileUp('writer running', async () => {
      const p = await n.pod('writer');
      return p?.status?.containerStatuses?.[0]?.state?.running ? p : undefined;
    }, 60_000);
    // The map is the pod's symlink to the PV's device, which containerd resolved.
    expect(readlinkSync(mapLink(writer.metadata.uid))).toBe(loop);
    await n.whileUp('the marker on the loop device\'s file', () => readFileSync(backing).subarray(0, MARKER.length).toString() === MARKER || undefined, 20_000);
    await deleted('writer');
    expect(() => lstatSync(mapLink(writer.metadata.uid))).toThrow(/ENOENT/);

    await podWith('reader', 'dd if=/dev/xvda bs=16 count=1 2>/dev/null; echo', asDevice);
    const reader = await n.whileUp('reader Succeeded', phaseIs('reader', 'Succeeded'), 60_000);
    const log = await n.whileUp('the reader\'s log', () => (containerLog(reader).includes(MARKER) ? containerLog(reader) : undefined), 10_000);
    expect(log).toContain(MARKER);
    await deleted('reader');
  }, 120_000);

  it('a pod that mounts the Block claim as a file system gets Go\'s FailedMount message', async () => {
    await podWith('mounter', 'true', { volumeMounts: [{ name: 'disk', mountPath: '/data' }] });
    const message = 'Unable to attach or mount volumes: unmounted volumes=[disk], unattached volumes=[disk], failed to process volumes=[disk]: volume disk has volumeMode Block, but is specified in volumeMounts';
    // Waits for the event with this message, not for the first FailedMount: on a busy machine one
    // written while the volume's state was still being read may come first.
    const events = await n.whileUp('the FailedMount event', async () => {
      const found = (await n.events({ name: 'mounter' })).filter((e) => e.reason === 'FailedMount');
      return found.some((e) => e.message === message) ? found : undefined;
    }, 30_000);
    expect(events.map((e) => e.message)).toContain(message);
    await deleted('mounter');
  }, 60_000);
});
