/**
 * DRA end to end on the real v1.35 control plane with the lab's DRA test driver (the e2e suite's
 * kubelet plugin) and the embedded runtime: the driver registers with kubelet-ts and publishes its
 * ResourceSlice; a ResourceClaim of its DeviceClass, shared by two pods the real scheduler places,
 * is prepared once, its CDI environment reaches both containers, it stays prepared across a kubelet
 * restart (dra_manager_state), the node's ResourceSlices are wiped at that start (a stale one goes),
 * the pod resources API lists its device, and it is unprepared once, when the second pod is gone; a
 * claim whose pod was deleted while the kubelet was down is unprepared by its reconcile pass, and the
 * driver's slice is wiped 30 s after its plugin died without deregistering (its connection gone).
 * On the embedded runtime, and on containerd 1.7 with CDI enabled (a containerd of its own: CI's
 * 1.6 drops the CRI's CDI devices), which applies the driver's CDI spec itself.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLab, kubeLabPart, labApi } from '../support/kube-lab.js';
import { DRA_TEST_DRIVER_NAME, draTestDriverPart, startDraTestDriver, type DraTestDriver } from '../support/dra-test-driver.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { podResourcesClient } from '../support/pod-resources-client.js';
import { downPrivateContainerd, upPrivateContainerd } from '../support/containerd-lab.js';
import { allOf, describeNeeding, type RealPart } from '../support/real-parts.js';

/** The calls of `method` the driver handled (its --v=6 log has one "handling request" line per call). */
const calls = (log: string, method: string) => log.split('\n').filter((l) => l.includes('"handling request"') && l.includes(`DRAPlugin/${method}"`)).length;

/** Where the node's pods run: its CRI endpoint and the CDI spec directory the runtime reads. */
interface DraRuntime {
  label: string;
  part: RealPart;
  up: () => Promise<{ endpoint: string; cdiDir: string; env: Record<string, string> }>;
  down: () => Promise<void>;
}

/** The embedded runtime applies the CDI specs it finds in KUBELET_TS_CDI_SPEC_DIRS. */
function embedded(): DraRuntime {
  let cdiDir = '';
  return {
    label: 'embedded runtime',
    part: { name: 'the embedded runtime', missing: '', unbuilt: '' },
    up: async () => {
      cdiDir = mkdtempSync(join(tmpdir(), 'kts-dra-cdi-'));
      return { endpoint: 'embedded', cdiDir, env: { KUBELET_TS_CDI_SPEC_DIRS: cdiDir } };
    },
    down: async () => {
      if (cdiDir) rmSync(cdiDir, { recursive: true, force: true });
    },
  };
}

/** Debian 13's containerd, beside CI's on a bridge, subnet and cgroup parent of its own. */
function containerd17(): DraRuntime {
  let lab = '';
  return {
    label: 'containerd 1.7 with CDI',
    part: { name: 'a containerd of its own', missing: process.getuid?.() === 0 ? '' : 'it needs root', unbuilt: '' },
    up: async () => {
      lab = mkdtempSync('/tmp/kts-cri.dra-');
      const c = await upPrivateContainerd({ ...process.env, LAB: lab, CONTAINERD_RELEASE: 'trixie', BRIDGE: 'ktsdra', POD_SUBNET: '10.215.0.0/24', CGROUP_PARENT: '/kts-dra', CNI_NETWORK: 'kts-dra' });
      if (!c.cdiSpecDir) throw new Error('up.sh with CONTAINERD_RELEASE=trixie exported no CDI spec directory');
      return { endpoint: c.endpoint, cdiDir: c.cdiSpecDir, env: {} };
    },
    down: async () => {
      if (lab) await downPrivateContainerd(lab);
    },
  };
}

for (const [NODE, runtime] of [['kts-dra', embedded()], ['kts-dra-ctrd', containerd17()]] as const) describeDraClaims(NODE, runtime);

function describeDraClaims(NODE: string, runtime: DraRuntime): void {
  const CLASS = `${NODE}-${process.pid}`;
  describeNeeding(allOf(kubeLabPart(), draTestDriverPart(), runtime.part), `DRA claims with the lab's DRA test driver on the real control plane, ${runtime.label}`, () => {
    let cdiDir: string;
    let n: LabNode;
    let driver: DraTestDriver;
    const prepares = () => calls(driver.log(), 'NodePrepareResources');
    const unprepares = () => calls(driver.log(), 'NodeUnprepareResources');
    const checkpoint = () => readFileSync(join(n.dir, 'root', 'dra_manager_state'), 'utf8');
    const pod = (name: string) => ({
      metadata: { name },
      spec: {
        terminationGracePeriodSeconds: 1,
        nodeSelector: { 'kubernetes.io/hostname': n.node },
        resourceClaims: [{ name: 'accel', resourceClaimName: 'shared' }],
        containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', `echo "claim=$claim_shared_gpu"; ${SLEEP}`], resources: { claims: [{ name: 'accel' }] } }],
      },
    });
    /** The drivers of the slices naming this node. */
    const slices = async () => ((await labApi<{ items?: { spec: { driver: string } }[] }>(await kubeLab(), 'GET', `/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName=${NODE}`)).body.items ?? []).map((s) => s.spec.driver);
    const running = (name: string) => n.whileUp(`${name} Running`, async () => ((await n.pod(name))?.status?.phase === 'Running' ? true : undefined), 60_000);

    beforeAll(async () => {
      // The kubelet wipes its node's slices at start, in the background: a driver that published
      // before the wipe would lose its slice until it publishes again, in its own time. So a
      // sentinel slice is made first, and the driver starts once the kubelet has wiped it.
      const lab = await kubeLab();
      await labApi(lab, 'DELETE', `/apis/resource.k8s.io/v1/resourceslices/${NODE}-sentinel`);
      const sentinel = await labApi(lab, 'POST', '/apis/resource.k8s.io/v1/resourceslices', {
        metadata: { name: `${NODE}-sentinel` },
        spec: { driver: 'sentinel.kts.example.com', nodeName: NODE, pool: { name: NODE, generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'gone' }] },
      });
      expect(sentinel.status).toBe(201);
      const node = await runtime.up();
      cdiDir = node.cdiDir;
      n = await startLabNode({ name: NODE, endpoint: node.endpoint, env: () => node.env });
      await n.whileUp('the node\'s slices wiped at start', async () => ((await slices()).length === 0 ? true : undefined), 60_000);
      driver = await startDraTestDriver(join(n.dir, 'root'), n.node, { kubeconfig: n.lab.adminKubeconfig, cdiDir });
      const created = await labApi(n.lab, 'POST', '/apis/resource.k8s.io/v1/deviceclasses', {
        metadata: { name: CLASS }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRA_TEST_DRIVER_NAME}"` } }] },
      });
      expect(created.status).toBe(201);
    }, 360_000);

    afterAll(async () => {
      await n?.dispose();
      await driver?.stop();
      await labApi(n.lab, 'DELETE', `/apis/resource.k8s.io/v1/deviceclasses/${CLASS}`).catch(() => undefined);
      await runtime.down();
    }, 180_000);

    it('prepares a claim shared by two scheduled pods once, and its CDI environment reaches both containers', async () => {
      await n.create(`/apis/resource.k8s.io/v1/namespaces/${n.ns}/resourceclaims`, {
        metadata: { name: 'shared' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: CLASS } }] } },
      });
      for (const name of ['first', 'second']) await n.create(`/api/v1/namespaces/${n.ns}/pods`, pod(name));
      for (const name of ['first', 'second']) await running(name);
      expect(prepares()).toBe(1);
      for (const name of ['first', 'second']) {
        const log = await n.whileUp(`${name}'s line`, async () => {
          const res = await n.kubeletGet(`/containerLogs/${n.ns}/${name}/main`);
          return res.status === 200 && res.body.includes('claim=') ? res.body : undefined;
        }, 20_000);
        expect(log.trim()).toBe('claim=true');
      }
      expect(JSON.parse(JSON.parse(checkpoint()).Data).ClaimInfoStateList).toMatchObject([{ ClaimName: 'shared', Namespace: n.ns, DriverState: { [DRA_TEST_DRIVER_NAME]: { Devices: [{ PoolName: n.node }] } } }]);
      // The pod resources API lists the claim's device for the container using it.
      const client = podResourcesClient(join(n.dir, 'root', 'pod-resources', 'kubelet.sock'));
      try {
        const { pod_resources } = await client.get(n.ns, 'first');
        expect(pod_resources?.containers[0]?.dynamic_resources).toEqual([{
          claim_name: 'shared', claim_namespace: n.ns,
          claim_resources: [{ driver_name: DRA_TEST_DRIVER_NAME, pool_name: n.node, device_name: expect.stringMatching(/^device-0\d$/), cdi_devices: [{ name: expect.stringMatching(new RegExp(`^${DRA_TEST_DRIVER_NAME}/test=claim-`)) }] }],
        }]);
      } finally {
        client.close();
      }
    }, 120_000);

    it('keeps the prepared claim across a kubelet restart, preparing nothing again for running pods; the node\'s slices are wiped at start', async () => {
      const stale = await labApi(n.lab, 'POST', '/apis/resource.k8s.io/v1/resourceslices', {
        metadata: { name: `${n.node}-stale` },
        spec: { driver: 'stale.kts.example.com', nodeName: n.node, pool: { name: n.node, generation: 1, resourceSliceCount: 1 }, devices: [{ name: 'gone' }] },
      });
      expect(stale.status).toBe(201);
      await n.restart();
      // The driver's own slice goes too and comes back when its plugin publishes again, in its own time.
      await n.whileUp('the stale slice wiped', async () => (!(await slices()).includes('stale.kts.example.com') ? true : undefined), 30_000);
      await running('first');
      await running('second');
      expect(prepares()).toBe(1);
      expect(Object.keys(JSON.parse(JSON.parse(checkpoint()).Data).ClaimInfoStateList[0].PodUIDs)).toHaveLength(2);
    }, 120_000);

    it('unprepares the claim once, when the last pod using it is gone', async () => {
      await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/first`);
      await n.whileUp('first gone', async () => ((await n.pod('first')) === undefined ? true : undefined), 60_000);
      expect(unprepares()).toBe(0);
      await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/second`);
      await n.whileUp('second gone', async () => ((await n.pod('second')) === undefined ? true : undefined), 60_000);
      expect(unprepares()).toBe(1);
      expect(JSON.parse(JSON.parse(checkpoint()).Data).ClaimInfoStateList).toBeNull();
    }, 150_000);

    it('unprepares the claim of a pod deleted while the kubelet was down, in its reconcile pass after the start', async () => {
      await n.create(`/apis/resource.k8s.io/v1/namespaces/${n.ns}/resourceclaims`, {
        metadata: { name: 'again' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: CLASS } }] } },
      });
      const third = pod('third');
      third.spec.resourceClaims = [{ name: 'accel', resourceClaimName: 'again' }];
      await n.create(`/api/v1/namespaces/${n.ns}/pods`, third);
      await running('third');
      expect(prepares()).toBe(2);
      await n.stop();
      await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/third`, { gracePeriodSeconds: 0 });
      await n.restart();
      // Go's reconcile period is a minute, and the first pass comes before every pod source is seen:
      // the second or, when the orphan's kill outlasts it, the third pass unprepares.
      // The driver logs the call before the kubelet has its answer, and the checkpoint is written after.
      const forgotten = () => JSON.parse(JSON.parse(checkpoint()).Data).ClaimInfoStateList === null;
      await n.whileUp('the claim unprepared and forgotten', async () => (unprepares() >= 2 && forgotten() ? true : undefined), 150_000);
      expect(unprepares()).toBe(2);
    }, 210_000);

    it('wipes the driver\'s slice 30 s after its plugin died, leaving its sockets, as Go does', async () => {
      await n.whileUp('the driver\'s slice published', async () => ((await slices()).includes(DRA_TEST_DRIVER_NAME) ? true : undefined), 60_000);
      // Killed, the driver leaves its registration socket and its slice: only the plugin's
      // connection, gone, tells the kubelet, which deletes the slice.
      await driver.stop('SIGKILL');
      const gone = Date.now();
      expect(existsSync(driver.registrationSocket)).toBe(true);
      expect(await slices()).toContain(DRA_TEST_DRIVER_NAME);
      await n.whileUp('the driver\'s slice wiped', async () => (!(await slices()).includes(DRA_TEST_DRIVER_NAME) ? true : undefined), 90_000);
      expect(Date.now() - gone).toBeGreaterThanOrEqual(25_000);
    }, 150_000);
  });
}
