import { describe, expect, it } from 'vitest';
import { computeNodeStatus, nodeImages, nodeStatusChanged, type NodeStaticFacts } from '../../../src/domain/node-status/node-status.js';
import { binaryQuantity, cpuQuantity } from '../../../src/domain/node-status/quantity-format.js';

const facts: NodeStaticFacts = {
  hostname: 'n1', nodeIps: ['10.0.0.5', 'fd00::5'],
  capacity: { cpuMillis: 4000, memoryBytes: 16_710_033_408, ephemeralStorageBytes: 100 * 2 ** 30, pods: 110 },
  allocatable: { cpuMillis: 3900, memoryBytes: 16_710_033_408 - 100 * 2 ** 20, ephemeralStorageBytes: 1000, pods: 110 },
  nodeInfo: {
    machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7.24',
    kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
  },
  kubeletPort: 10250,
  maxImages: 2,
};
const health = { runtime: { runtimeReady: true, networkReady: true }, pleg: { healthy: true } };

describe('quantities', () => {
  it.each([[4000, '4'], [3900, '3900m'], [0, '0'], [250, '250m']])('cpu %d millicores is %s', (m, q) => expect(cpuQuantity(m)).toBe(q));
  it.each([[16_710_033_408, '16318392Ki'], [2 ** 30, '1Gi'], [1000, '1000'], [0, '0'], [3 * 2 ** 20, '3Mi']])('%d bytes is %s', (b, q) => expect(binaryQuantity(b)).toBe(q));
});

describe('computeNodeStatus', () => {
  it('reports addresses, capacity, allocatable, nodeInfo and the kubelet port', () => {
    const s = computeNodeStatus({ facts, health, images: [], previousConditions: [], nowMs: 0 });
    expect(s.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'InternalIP', address: 'fd00::5' }, { type: 'Hostname', address: 'n1' }]);
    expect(s.capacity).toEqual({ cpu: '4', memory: '16318392Ki', 'ephemeral-storage': '100Gi', pods: '110' });
    expect(s.allocatable).toEqual({ cpu: '3900m', memory: '16215992Ki', 'ephemeral-storage': '1000', pods: '110' });
    expect(s.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect(s.nodeInfo?.containerRuntimeVersion).toBe('containerd://1.7.24');
  });

  it('changes only with something other than heartbeat times', () => {
    const a = computeNodeStatus({ facts, health, images: [], previousConditions: [], nowMs: 0 });
    const b = computeNodeStatus({ facts, health, images: [], previousConditions: a.conditions ?? [], nowMs: 10_000 });
    expect(nodeStatusChanged(a, b)).toBe(false);
    expect(nodeStatusChanged(null, b)).toBe(true);
    const c = computeNodeStatus({ facts, health, images: [{ repoTags: ['busybox:1'], repoDigests: [], sizeBytes: 1 }], previousConditions: a.conditions ?? [], nowMs: 20_000 });
    expect(nodeStatusChanged(b, c)).toBe(true);
  });

  it('reports the volumes in use when a volume manager gives them, an empty list too (it clears the last one), and a change is a change', () => {
    const a = computeNodeStatus({ facts, health, images: [], volumesInUse: ['kubernetes.io/csi/csi-mock.lab.k8s.io^h1'], previousConditions: [], nowMs: 0 });
    expect(a.volumesInUse).toEqual(['kubernetes.io/csi/csi-mock.lab.k8s.io^h1']);
    const b = computeNodeStatus({ facts, health, images: [], volumesInUse: [], previousConditions: a.conditions ?? [], nowMs: 10_000 });
    expect(b.volumesInUse).toEqual([]);
    expect(nodeStatusChanged(a, b)).toBe(true);
    expect(computeNodeStatus({ facts, health, images: [], previousConditions: [], nowMs: 0 })).not.toHaveProperty('volumesInUse');
  });
});

describe('nodeImages', () => {
  const img = (n: number, size: number) => ({ repoTags: Array.from({ length: n }, (_, i) => `t${size}:${i}`), repoDigests: [`d${size}@sha256:x`], sizeBytes: size });
  it('keeps the largest images up to the limit, digests first, at most five names', () => {
    const out = nodeImages([img(1, 10), img(7, 30), img(1, 20)], 2);
    expect(out.map((i) => i.sizeBytes)).toEqual([30, 20]);
    expect(out[0]!.names).toEqual(['d30@sha256:x', 't30:0', 't30:1', 't30:2', 't30:3']);
  });
  it('reports none with 0 and all with -1', () => {
    expect(nodeImages([img(1, 1)], 0)).toEqual([]);
    expect(nodeImages([img(1, 1), img(1, 2), img(1, 3)], -1)).toHaveLength(3);
  });
});
