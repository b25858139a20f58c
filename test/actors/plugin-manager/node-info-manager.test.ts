import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createNodeInfoManager } from '../../../src/actors/plugin-manager/node-info-manager.js';
import type { CsiNodeObject } from '../../../src/domain/csi/csi-node.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { NodeMetadataPatch, NodeObject } from '../../../src/ports/apiserver.js';
import type { CsiNodeApi } from '../../../src/ports/csi-node-api.js';

const MOCK = { name: 'csi-mock.lab.k8s.io', nodeId: 'csi-mock.lab.k8s.io', topology: { 'topology.mock/zone': 'a' }, maxVolumesPerNode: 2 };

/** An API server of one Node and maybe its CSINode, with resourceVersions, that can refuse the next calls. */
class FakeCsiNodeApi implements CsiNodeApi {
  node: NodeObject = { metadata: { name: 'n1', uid: 'uid-1', resourceVersion: '1', labels: {}, annotations: {} } };
  csiNode: CsiNodeObject | undefined;
  calls: string[] = [];
  /** Errors thrown by the next calls, first first. */
  failures: KubeletError[] = [];
  /** Someone else writes the Node between our read and our patch, this many times. */
  racingWrites = 0;

  private gate(call: string) {
    this.calls.push(call);
    const next = this.failures.shift();
    if (next) throw next;
  }
  async getNode() { this.gate('getNode'); return structuredClone(this.node); }
  async patchNode(_name: string, patch: NodeMetadataPatch) {
    this.gate('patchNode');
    if (this.racingWrites > 0) {
      this.racingWrites -= 1;
      this.node.metadata.resourceVersion = String(Number(this.node.metadata.resourceVersion) + 1);
    }
    if (patch.metadata.resourceVersion !== this.node.metadata.resourceVersion) throw new KubeletError('KLT_ERR_API_CONFLICT', 'patch node: 409 Conflict');
    const annotations: Record<string, string> = { ...this.node.metadata.annotations };
    for (const [k, v] of Object.entries(patch.metadata.annotations ?? {})) if (v === null) delete annotations[k]; else annotations[k] = v;
    this.node.metadata = { ...this.node.metadata, annotations, labels: { ...this.node.metadata.labels, ...patch.metadata.labels }, resourceVersion: String(Number(this.node.metadata.resourceVersion) + 1) };
    return structuredClone(this.node);
  }
  async getCsiNode() {
    this.gate('getCsiNode');
    if (!this.csiNode) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'get csinode: 404 NotFound');
    return structuredClone(this.csiNode);
  }
  async createCsiNode(csiNode: CsiNodeObject) { this.gate('createCsiNode'); this.csiNode = { ...structuredClone(csiNode), metadata: { ...csiNode.metadata, resourceVersion: '1' } }; return structuredClone(this.csiNode); }
  async updateCsiNode(csiNode: CsiNodeObject) {
    this.gate('updateCsiNode');
    if (csiNode.metadata.resourceVersion !== this.csiNode?.metadata.resourceVersion) throw new KubeletError('KLT_ERR_API_CONFLICT', 'update csinode: 409 Conflict');
    this.csiNode = { ...structuredClone(csiNode), metadata: { ...csiNode.metadata, resourceVersion: String(Number(csiNode.metadata.resourceVersion) + 1) } };
    return structuredClone(this.csiNode);
  }
}

/** Runs `work` while the simulated clock moves the back-off along. */
async function withClock<T>(clock: SimulatedClock, work: Promise<T>): Promise<T> {
  let settled: { value: T } | { error: unknown } | undefined;
  void work.then((value) => { settled = { value }; }, (error: unknown) => { settled = { error }; });
  while (!settled) {
    await new Promise<void>((r) => setImmediate(r));
    clock.increment(10);
  }
  if ('error' in settled) throw settled.error;
  return settled.value;
}

function manager() {
  const api = new FakeCsiNodeApi();
  const clock = new SimulatedClock();
  return { api, clock, nim: createNodeInfoManager({ api: () => api, clock }) };
}

describe('createNodeInfoManager', () => {
  it('creates the CSINode at start, owned by the Node, and leaves one that is current alone', async () => {
    const { api, nim } = manager();
    await nim.initializeCsiNode('n1', ['kubernetes.io/gce-pd']);
    expect(api.csiNode?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' }]);
    api.calls = [];
    await nim.initializeCsiNode('n1', ['kubernetes.io/gce-pd']);
    expect(api.calls).toEqual(['getCsiNode']);
  });

  it('installs a driver: the annotation and topology labels on the Node, the entry in a CSINode it makes when missing', async () => {
    const { api, nim, clock } = manager();
    await withClock(clock, nim.installDriver('n1', MOCK, []));
    expect(api.node.metadata.annotations).toEqual({ 'csi.volume.kubernetes.io/nodeid': '{"csi-mock.lab.k8s.io":"csi-mock.lab.k8s.io"}' });
    expect(api.node.metadata.labels).toEqual({ 'topology.mock/zone': 'a' });
    expect(api.csiNode?.spec.drivers).toEqual([{ name: MOCK.name, nodeID: MOCK.nodeId, topologyKeys: ['topology.mock/zone'], allocatable: { count: 2 } }]);
  });

  it('reads the Node again after a conflict (someone wrote in between) and patches the new version', async () => {
    const { api, nim, clock } = manager();
    api.racingWrites = 2;
    await withClock(clock, nim.installDriver('n1', MOCK, []));
    expect(api.calls.filter((c) => c === 'patchNode')).toHaveLength(3);
    expect(api.node.metadata.annotations?.['csi.volume.kubernetes.io/nodeid']).toBeDefined();
  });

  it('rides out a short outage, and fails with Go\'s message and every error once its four tries are spent', async () => {
    const { api, nim, clock } = manager();
    const down = () => new KubeletError('KLT_ERR_API_UNAVAILABLE', 'get node: ECONNREFUSED', { retryable: true });
    api.failures = [down(), down()];
    await withClock(clock, nim.installDriver('n1', MOCK, []));
    expect(api.csiNode?.spec.drivers).toHaveLength(1);

    const again = manager();
    again.api.failures = [down(), down(), down(), down()];
    const err = await withClock(again.clock, again.nim.installDriver('n1', MOCK, []).then(() => null, (e: unknown) => e));
    expect(err).toMatchObject({ code: 'KLT_ERR_API_UNAVAILABLE', retryable: true });
    expect((err as Error).message).toBe('error updating Node object with CSI driver node info: error updating node: timed out waiting for the condition; caused by: [get node: ECONNREFUSED, get node: ECONNREFUSED, get node: ECONNREFUSED, get node: ECONNREFUSED]');
    expect(again.api.calls).toEqual(['getNode', 'getNode', 'getNode', 'getNode']);
  });

  it('refuses an empty node ID and a topology label collision without writing', async () => {
    const { api, nim, clock } = manager();
    await expect(nim.installDriver('n1', { ...MOCK, nodeId: '' }, [])).rejects.toMatchObject({ message: 'error adding CSI driver node info: driverNodeID must not be empty' });
    api.node.metadata.labels = { 'topology.mock/zone': 'b' };
    await expect(withClock(clock, nim.installDriver('n1', MOCK, []))).rejects.toMatchObject({ message: expect.stringContaining('detected topology value collision') });
    expect(api.calls).not.toContain('patchNode');
  });

  it('uninstalls a driver: out of the CSINode, out of the annotation; its topology labels stay', async () => {
    const { api, nim, clock } = manager();
    await withClock(clock, nim.installDriver('n1', MOCK, []));
    await withClock(clock, nim.uninstallDriver('n1', MOCK.name));
    expect(api.csiNode?.spec.drivers).toEqual([]);
    expect(api.node.metadata.annotations).toEqual({});
    expect(api.node.metadata.labels).toEqual({ 'topology.mock/zone': 'a' });
  });

  it('uninstalls nothing from a node without a CSINode', async () => {
    const { api, nim, clock } = manager();
    await withClock(clock, nim.uninstallDriver('n1', MOCK.name));
    expect(api.calls).toEqual(['getCsiNode', 'getNode']);
  });
});
