/**
 * DRA end to end on the real v1.35 control plane with the lab's DRA test driver (the e2e suite's
 * kubelet plugin) and the embedded runtime: the driver registers with kubelet-ts and publishes its
 * ResourceSlice; a ResourceClaim of its DeviceClass, shared by two pods the real scheduler places,
 * is prepared once, its CDI environment reaches both containers, it stays prepared across a kubelet
 * restart (dra_manager_state), the node's ResourceSlices are wiped at that start (a stale one goes),
 * the pod resources API lists its device, and it is
 * unprepared once, when the second pod is gone.
 * Containerd 1.6 (the lab's) drops CDI devices: this runs on the embedded runtime only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLab, kubeLabPart, labApi } from '../support/kube-lab.js';
import { DRA_TEST_DRIVER_NAME, draTestDriverPart, startDraTestDriver, type DraTestDriver } from '../support/dra-test-driver.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { podResourcesClient } from '../support/pod-resources-client.js';
import { allOf, describeNeeding } from '../support/real-parts.js';

const CLASS = `kts-dra-${process.pid}`;
const NODE = 'kts-dra';
/** The calls of `method` the driver handled (its --v=6 log has one "handling request" line per call). */
const calls = (log: string, method: string) => log.split('\n').filter((l) => l.includes('"handling request"') && l.includes(`DRAPlugin/${method}"`)).length;

describeNeeding(allOf(kubeLabPart(), draTestDriverPart()), 'DRA claims with the lab\'s DRA test driver on the real control plane, embedded runtime', () => {
  const cdiDir = mkdtempSync(join(tmpdir(), 'kts-dra-cdi-'));
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
    n = await startLabNode({ name: NODE, endpoint: 'embedded', env: () => ({ KUBELET_TS_CDI_SPEC_DIRS: cdiDir }) });
    await n.whileUp('the node\'s slices wiped at start', async () => ((await slices()).length === 0 ? true : undefined), 60_000);
    driver = await startDraTestDriver(join(n.dir, 'root'), n.node, { kubeconfig: n.lab.adminKubeconfig, cdiDir });
    const created = await labApi(n.lab, 'POST', '/apis/resource.k8s.io/v1/deviceclasses', {
      metadata: { name: CLASS }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRA_TEST_DRIVER_NAME}"` } }] },
    });
    expect(created.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
    await driver?.stop();
    await labApi(n.lab, 'DELETE', `/apis/resource.k8s.io/v1/deviceclasses/${CLASS}`).catch(() => undefined);
    rmSync(cdiDir, { recursive: true, force: true });
  }, 120_000);

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
});
