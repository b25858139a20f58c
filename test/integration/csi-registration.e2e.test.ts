/**
 * CSI driver registration end to end, in cluster mode on the real control plane (kube-lab.ts) with
 * the node's own credentials (the Node authorizer and NodeRestriction apply), on the embedded
 * runtime: the lab's upstream CSI mock driver registers through `<root>/plugins_registry`. The node
 * gets its CSINode at start (empty, owned by the Node); the driver's entry and the Node's nodeid
 * annotation come with the driver, which is told it was registered; SIGTERM (its sockets removed)
 * takes both away; started again, both come back. The kubelet's journal then replays identically.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allOf, describeNeeding } from '../support/real-parts.js';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { startLabNode, type LabNode } from '../support/lab-node.js';
import { CSI_MOCK_DRIVER_NAME, type CsiMockDriver, csiMockDriverPart, startCsiMockDriver, toldRegistered } from '../support/csi-mock-driver.js';
import { journalLines } from '../support/kubelet-journal.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';

interface CsiNode {
  metadata: { name: string; ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[]; annotations?: Record<string, string> };
  spec: { drivers: { name: string; nodeID: string; topologyKeys?: string[] | null }[] | null };
}

const NODE_ID_ANNOTATION = 'csi.volume.kubernetes.io/nodeid';

describeNeeding(allOf(kubeLabPartFor('embedded'), csiMockDriverPart()), 'CSI driver registration on the real control plane', () => {
  let n: LabNode;
  let driver: CsiMockDriver | undefined;
  const root = () => join(n.dir, 'root');
  const csiNode = async () => {
    const res = await labApi<CsiNode>(n.lab, 'GET', `/apis/storage.k8s.io/v1/csinodes/${n.node}`);
    return res.status === 200 ? res.body : undefined;
  };
  const drivers = async () => (await csiNode())?.spec.drivers ?? [];
  const annotation = async () => (await n.nodeObject() as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.[NODE_ID_ANNOTATION];

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-csireg', endpoint: 'embedded' });
  }, 60_000);

  afterAll(async () => {
    await driver?.stop();
    await labApi(n.lab, 'DELETE', `/apis/storage.k8s.io/v1/csinodes/${n?.node}`);
    await n?.dispose();
  }, 60_000);

  it('makes the node\'s CSINode at start: no drivers, owned by its Node', async () => {
    const made = await n.whileUp('the CSINode', csiNode, 30_000);
    const node = await n.nodeObject();
    expect(made.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: n.node, uid: node.metadata.uid }]);
    expect(made.spec.drivers ?? []).toEqual([]);
    expect(made.metadata.annotations?.['storage.alpha.kubernetes.io/migrated-plugins']).toContain('kubernetes.io/gce-pd');
  }, 40_000);

  it('registers the mock driver: its entry in the CSINode, its node ID on the Node, and the driver is told', async () => {
    driver = await startCsiMockDriver(root());
    const entry = await n.whileUp('the driver in the CSINode', async () => (await drivers()).find((d) => d.name === CSI_MOCK_DRIVER_NAME), 20_000);
    expect(entry).toMatchObject({ name: CSI_MOCK_DRIVER_NAME, nodeID: CSI_MOCK_DRIVER_NAME });
    expect(JSON.parse((await annotation()) ?? '{}')).toEqual({ [CSI_MOCK_DRIVER_NAME]: CSI_MOCK_DRIVER_NAME });
    await n.whileUp('the driver told it was registered', () => toldRegistered(driver!.log()), 10_000);
    expect(driver.log()).toContain('"Kubelet plugin registration: GetInfo"');
    expect(driver.log()).not.toContain('Kubelet plugin registration: FAILED');
    // Every step is in the journal: the socket's actor went through GetInfo, NodeGetInfo, the install and the notify.
    const socketActor = `plugin:${encodeURIComponent(`${CSI_MOCK_DRIVER_NAME}-reg.sock`)}`;
    // The journal is written behind the actors: read until the last step is in.
    const steps = () => journalLines(root()).filter((l) => l.actor === socketActor && l.type === 'state').map((l) => String((l.payload as { value?: unknown }).value)).join(' ');
    await n.whileUp('the registration\'s steps in the journal', () => /registered/.test(steps()), 10_000);
    expect(steps()).toMatch(/gettingInfo.*gettingNodeInfo.*installing.*notifying.*registered/);
  }, 40_000);

  it('deregisters the driver when it stops (its sockets removed), and registers it again when it comes back', async () => {
    await driver!.stop();
    await n.whileUp('the driver out of the CSINode', async () => (await drivers()).every((d) => d.name !== CSI_MOCK_DRIVER_NAME), 20_000);
    await n.whileUp('the nodeid annotation gone', async () => (await annotation()) === undefined, 10_000);

    driver = await startCsiMockDriver(root());
    const entry = await n.whileUp('the driver back in the CSINode', async () => (await drivers()).find((d) => d.name === CSI_MOCK_DRIVER_NAME), 20_000);
    expect(entry).toMatchObject({ nodeID: CSI_MOCK_DRIVER_NAME });
    expect(JSON.parse((await annotation()) ?? '{}')).toEqual({ [CSI_MOCK_DRIVER_NAME]: CSI_MOCK_DRIVER_NAME });
    await n.whileUp('the driver told it was registered again', () => toldRegistered(driver!.log()), 10_000);
  }, 60_000);

  it('stops cleanly and leaves a journal that replays identically, the registrations\' answers among its inputs', async () => {
    expect(await n.stop()).toBe(0);
    const journal = join(root(), 'events', 'latest.jsonl');
    const { records } = readJournal(journal);
    expect(records.filter((r) => r.kind === 'input' && r.type === 'event' && r.name === 'plugin.socket.created').length).toBeGreaterThanOrEqual(2);
    const r = runKubeletCommand('replay', [journal]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 30_000);
});
