/**
 * Device plugins, end to end: cluster mode on the real control plane (kube-lab.ts), containerd, and
 * the lab's upstream sample device plugin (example.com/resource: Dev-1, Dev-2; Allocate mounts
 * /tmp/<id>) registering on the kubelet's kubelet.sock, in a device-plugins directory of the test's
 * own (--device-plugins-dir). The Node gains the resource; scheduled pods get one device each and
 * see it; a third pod bound to the node is refused at admission; a kubelet restart keeps the running
 * pods' devices (the checkpoint) and the plugin, started again, registers again; a deleted pod's
 * device goes to the next; the plugin stopped, allocatable drops.
 * Each step is one `it`, in order, over the shared `pods` record (pod → its uid and device): later
 * checks read it; the pod resources API's List is checked against it after the pods start and after the restart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { allOf, containerdEndpoint, describeNeeding } from '../support/real-parts.js';
import { devicesHeld } from '../support/pod-resources-client.js';
import {
  removeSampleDeviceFiles, SAMPLE_DEVICES, SAMPLE_RESOURCE, sampleDevicePluginPart, startSampleDevicePlugin, type SampleDevicePlugin,
} from '../support/sample-device-plugin.js';

const endpoint = containerdEndpoint();
/** Prints the device files it sees, then sleeps until SIGTERM. */
// `sleep 1` is the idle loop of a container that must stay up; the test waits on its log line.
const SHOW_DEVICES = ['sh', '-c', `echo "devices=$(ls /tmp | grep '^Dev-' | tr '\\n' ' ')"; trap 'exit 0' TERM; while :; do sleep 1; done`];
const REFUSAL = `Pod was rejected: Allocate failed due to requested number of devices unavailable for ${SAMPLE_RESOURCE}. Requested: 1, Available: 0, which is unexpected`;

describeNeeding(allOf(kubeLabPartFor(endpoint), sampleDevicePluginPart()), 'device plugins on the real control plane and containerd, through the upstream sample device plugin', () => {
  let n: LabNode;
  let plugin: SampleDevicePlugin | undefined;
  /** The pods that hold a device: their uid and the device they print. */
  const pods: Record<string, { uid: string; device: string }> = {};
  const dir = () => join(n.dir, 'root', 'device-plugins');
  /** Which container of which pod holds which device, as a monitoring agent reads it (the pod resources API). */
  const held = () => devicesHeld(join(n.dir, 'root', 'pod-resources', 'kubelet.sock'), SAMPLE_RESOURCE);
  const counts = async () => {
    const status = (await n.nodeObject()).status;
    return { capacity: status?.capacity?.[SAMPLE_RESOURCE], allocatable: status?.allocatable?.[SAMPLE_RESOURCE] };
  };
  const untilCounts = (capacity: string, allocatable: string, what: string) => n.whileUp(what, async () => {
    const c = await counts();
    return c.capacity === capacity && c.allocatable === allocatable ? c : undefined;
  }, 60_000);
  const asking = (extra: Record<string, unknown> = {}) => ({
    containers: [{ name: 'c', image: BUSYBOX, command: SHOW_DEVICES, resources: { limits: { [SAMPLE_RESOURCE]: '1' } } }], ...extra,
  });
  /** A pod the scheduler places on this node (held there by its hostname label). */
  const schedule = (name: string) => n.create<LabPod>(`/api/v1/namespaces/${n.ns}/pods`, {
    metadata: { name }, spec: { terminationGracePeriodSeconds: 1, nodeSelector: { 'kubernetes.io/hostname': n.node }, ...asking() },
  });
  const runningWithDevice = async (name: string) => {
    const pod = await n.whileUp(`${name} Running`, async () => {
      const p = await n.pod(name);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 90_000);
    const line = await n.whileUp(`${name}'s devices line`, async () => {
      const res = await n.kubeletGet(`/containerLogs/${n.ns}/${name}/c`);
      return res.status === 200 ? /^devices=(.*)$/m.exec(res.body)?.[1] : undefined;
    }, 30_000);
    const seen = line.trim().split(/\s+/).filter(Boolean);
    expect(seen).toHaveLength(1);
    expect(SAMPLE_DEVICES).toContain(seen[0]);
    pods[name] = { uid: pod.metadata.uid, device: seen[0]! };
    return pods[name]!;
  };
  const refused = (name: string) => n.whileUp(`${name} refused`, async () => {
    const p = await n.pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  }, 60_000);
  const checkpoint = () => JSON.parse(readFileSync(join(dir(), 'kubelet_internal_checkpoint'), 'utf8')) as {
    Data: { PodDeviceEntries: { PodUID: string; ResourceName: string; DeviceIDs: Record<string, string[]> }[] | null; RegisteredDevices: Record<string, string[]> };
    Checksum: number;
  };
  const startPlugin = () => {
    plugin = startSampleDevicePlugin(dir());
    return plugin;
  };

  beforeAll(async () => {
    removeSampleDeviceFiles();
    n = await startLabNode({
      name: 'kts-devices', endpoint,
      // The test kubelets' device-plugins directory is <root>/device-plugins (cluster-kubelet.ts).
      extraConfig: () => ['nodeStatusUpdateFrequency: 2s'],
    });
    await n.whileUp('the node Ready', async () => (await n.nodeObject().catch(() => undefined))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 60_000);
    await n.whileUp('kubelet.sock served', () => existsSync(join(dir(), 'kubelet.sock')), 30_000);
  }, 120_000);

  afterAll(async () => {
    await plugin?.stop();
    await n?.dispose();
    removeSampleDeviceFiles();
  }, 120_000);

  it('registers the plugin: the Node\'s capacity and allocatable gain example.com/resource: 2', async () => {
    const p = startPlugin();
    expect(await untilCounts('2', '2', 'example.com/resource 2 on the Node')).toEqual({ capacity: '2', allocatable: '2' });
    expect(p.log()).toContain('ListAndWatch');
    const metrics = (await n.kubeletGet('/metrics')).body;
    expect(metrics).toMatch(new RegExp(`^kubelet_device_plugin_registration_total\\{resource_name="${SAMPLE_RESOURCE}"\\} 1$`, 'm'));
  }, 90_000);

  it('runs two scheduled pods asking for one device each: each sees its own /tmp/Dev-N, Allocate asked once per container', async () => {
    await schedule('dev-a');
    await schedule('dev-b');
    const a = await runningWithDevice('dev-a');
    const b = await runningWithDevice('dev-b');
    expect(new Set([a.device, b.device])).toEqual(new Set(SAMPLE_DEVICES));
    expect(plugin!.log().match(/"Allocate" request=/g)).toHaveLength(2);
    const entries = checkpoint().Data.PodDeviceEntries ?? [];
    expect(entries.map((e) => [e.PodUID, e.DeviceIDs['-1']])).toEqual(expect.arrayContaining([[a.uid, [a.device]], [b.uid, [b.device]]]));
    expect(await held()).toEqual({ [`${n.ns}/dev-a/c`]: [a.device], [`${n.ns}/dev-b/c`]: [b.device] });
    // /metrics answers the same snapshot for a second: polled.
    const allocs = new RegExp(`^kubelet_device_plugin_alloc_duration_seconds_count\\{resource_name="${SAMPLE_RESOURCE}"\\} (\\d+)$`, 'm');
    expect(await n.whileUp('two Allocate durations in /metrics', async () => {
      const count = allocs.exec((await n.kubeletGet('/metrics')).body)?.[1];
      return count === '2' ? count : undefined;
    }, 10_000)).toBe('2');
  }, 180_000);

  it('refuses at admission a pod bound to the node when both devices are held, with UnexpectedAdmissionError', async () => {
    await n.createPod('dev-c', asking());
    const pod = await refused('dev-c');
    expect(pod.status).toMatchObject({ reason: 'UnexpectedAdmissionError', message: REFUSAL });
  }, 90_000);

  it('keeps the running pods\' devices over a kubelet restart, and the plugin started again registers again', async () => {
    await n.restart();
    await n.whileUp('kubelet.sock served again', () => existsSync(join(dir(), 'kubelet.sock')), 60_000);
    // The restarted kubelet knows the resource from its checkpoint, with no device until the plugin is back.
    await untilCounts('0', '0', 'the resource at 0 until its plugin registers again');
    // The plugin does not notice the restart (the kubelet removed its socket): started again, as the README says.
    await plugin!.stop();
    const again = startPlugin();
    await n.whileUp('the plugin\'s stream opened again', () => again.log().includes('ListAndWatch'), 60_000);
    await untilCounts('2', '2', 'example.com/resource 2 on the Node again');
    for (const name of ['dev-a', 'dev-b']) {
      const p = await n.pod(name);
      expect(p?.status?.phase).toBe('Running');
      expect(p?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    }
    const entries = checkpoint().Data.PodDeviceEntries ?? [];
    expect(entries.map((e) => [e.PodUID, e.DeviceIDs['-1']])).toEqual(expect.arrayContaining([[pods['dev-a']!.uid, [pods['dev-a']!.device]], [pods['dev-b']!.uid, [pods['dev-b']!.device]]]));
    expect(await held()).toEqual({ [`${n.ns}/dev-a/c`]: [pods['dev-a']!.device], [`${n.ns}/dev-b/c`]: [pods['dev-b']!.device] });
    // Nothing was given twice: both devices are still held, so one more pod is refused.
    await n.createPod('dev-d', asking());
    expect((await refused('dev-d')).status).toMatchObject({ reason: 'UnexpectedAdmissionError', message: REFUSAL });
  }, 240_000);

  it('gives a deleted pod\'s device to the next pod', async () => {
    const freed = pods['dev-b']!.device;
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/dev-b`);
    await n.whileUp('dev-b gone', async () => (await n.pod('dev-b')) === undefined, 90_000);
    delete pods['dev-b'];
    await n.createPod('dev-e', asking());
    expect((await runningWithDevice('dev-e')).device).toBe(freed);
  }, 180_000);

  it('drops allocatable once the plugin stops; capacity stays for the grace period', async () => {
    await plugin!.stop();
    expect(await untilCounts('2', '0', 'allocatable example.com/resource 0')).toEqual({ capacity: '2', allocatable: '0' });
  }, 90_000);
});
