import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/domain/pod/types.js';
import { defaultMachineState, type MemoryInventory } from '../../../../src/domain/resource-managers/memory/machine-state.js';
import { containerMemoryRequests, podMemoryRequests } from '../../../../src/domain/resource-managers/memory/requests.js';
import {
  allocateMemory, calculateHints, machineStateWith, regeneratedHints, settlePodMemory, viewForPod, type PodMemoryShares,
} from '../../../../src/domain/resource-managers/memory/static-policy.js';

const Gi = 2 ** 30;
// Two NUMA nodes of 4Gi each; node 1 has two 1Gi hugepages; 1Gi of node 0 is reserved for the system.
const inventory: MemoryInventory = {
  nodes: [
    { id: 0, memoryBytes: 4 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }] },
    { id: 1, memoryBytes: 4 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }, { pageSizeKiB: 1048576, pages: 2 }] },
  ],
  systemReserved: { 0: { memory: Gi } },
};

const ctr = (name: string, memory: string, extra: Record<string, string> = {}): Container => ({
  name, image: 'busybox', resources: { requests: { cpu: '1', memory, ...extra }, limits: { cpu: '1', memory, ...extra } },
});
const pod = (containers: Container[], initContainers: Container[] = []): Pod => ({
  metadata: { name: 'p', uid: 'uid-p' }, spec: { containers, initContainers },
});
const hint = (numaNodes: number[], preferred: boolean) => ({ numaNodes, preferred });
const empty = (p: Pod) => viewForPod(inventory, {}, p, {});

describe('the Static memory policy', () => {
  it('starts from each node\'s memory less the system reservation and the hugepages', () => {
    const state = defaultMachineState(inventory);
    expect(state[0]).toEqual({ numberOfAssignments: 0, cells: [0], memoryMap: {
      'hugepages-2Mi': { total: 0, systemReserved: 0, allocatable: 0, reserved: 0, free: 0 },
      memory: { total: 4 * Gi, systemReserved: Gi, allocatable: 3 * Gi, reserved: 0, free: 3 * Gi },
    } });
    expect(state[1]?.memoryMap.memory?.allocatable).toBe(2 * Gi);
    expect(state[1]?.memoryMap['hugepages-1Gi']).toEqual({ total: 2 * Gi, systemReserved: 0, allocatable: 2 * Gi, reserved: 0, free: 2 * Gi });
  });

  it('hints every node set that can hold the request, preferring the narrowest', () => {
    expect(calculateHints(empty(pod([])), { memory: 2 * Gi })).toEqual({ memory: [hint([0], true), hint([1], true), hint([0, 1], false)] });
    expect(calculateHints(empty(pod([])), { memory: 3 * Gi })).toEqual({ memory: [hint([0], true), hint([0, 1], false)] });
    expect(calculateHints(empty(pod([])), { memory: 4 * Gi, 'hugepages-1Gi': Gi })).toEqual({
      'hugepages-1Gi': [hint([0, 1], true)], memory: [hint([0, 1], true)],
    });
    expect(calculateHints(empty(pod([])), { memory: 6 * Gi })).toEqual({ memory: [] });
  });

  it('keeps a node that serves a single-node allocation out of multi-node hints', () => {
    const others: Record<string, PodMemoryShares> = { other: { app: { numaNodes: [0], bytes: { memory: Gi } } } };
    const view = viewForPod(inventory, others, pod([]), {});
    expect(view.state[0]?.memoryMap.memory).toMatchObject({ reserved: Gi, free: 2 * Gi });
    expect(calculateHints(view, { memory: 2 * Gi })).toEqual({ memory: [hint([0], true), hint([1], true)] });
    expect(calculateHints(view, { memory: 4 * Gi })).toEqual({ memory: [] });
  });

  it('keeps a multi-node group whole: its nodes serve no single-node allocation', () => {
    const others: Record<string, PodMemoryShares> = { other: { app: { numaNodes: [0, 1], bytes: { memory: 4 * Gi } } } };
    const view = viewForPod(inventory, others, pod([]), {});
    expect(calculateHints(view, { memory: Gi })).toEqual({ memory: [hint([0, 1], false)] });
  });

  it('allocates on the topology manager\'s affinity', () => {
    expect(allocateMemory(empty(pod([])), { memory: Gi }, hint([1], true))).toEqual({ ok: true, share: { numaNodes: [1], bytes: { memory: Gi } } });
  });

  it('picks the best hint itself when the topology manager gave no affinity', () => {
    expect(allocateMemory(empty(pod([])), { memory: 3 * Gi }, { numaNodes: null, preferred: false })).toEqual({ ok: true, share: { numaNodes: [0], bytes: { memory: 3 * Gi } } });
  });

  it('widens an affinity that cannot hold the request to the best hint containing it', () => {
    expect(allocateMemory(empty(pod([])), { memory: 4 * Gi }, hint([1], false))).toEqual({ ok: true, share: { numaNodes: [0, 1], bytes: { memory: 4 * Gi } } });
  });

  it('fails with Go\'s message when no node set has the memory', () => {
    expect(allocateMemory(empty(pod([])), { memory: 8 * Gi }, { numaNodes: null, preferred: false })).toEqual({
      ok: false, message: '[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available',
    });
  });

  it('lets app containers reuse what an init container held on the same nodes', () => {
    const p = pod([ctr('a', '1Gi'), ctr('b', '2Gi')], [ctr('init', '2Gi')]);
    const own: PodMemoryShares = {
      init: { numaNodes: [0], bytes: { memory: 2 * Gi } },
      a: { numaNodes: [0], bytes: { memory: Gi } },
    };
    // The init container's 2Gi are held once; "a" took 1Gi of them, 1Gi is left for "b".
    const view = viewForPod(inventory, {}, p, own);
    expect(view.state[0]?.memoryMap.memory).toMatchObject({ reserved: 2 * Gi, free: Gi });
    expect(calculateHints(view, { memory: 2 * Gi }).memory).toContainEqual(hint([0], true));
    const settled = settlePodMemory(p, { ...own, b: { numaNodes: [0], bytes: { memory: 2 * Gi } } });
    expect(settled.init?.bytes.memory).toBe(0);
    // What the shares add up to is what the pod holds: 3Gi on node 0.
    expect(machineStateWith(inventory, { 'uid-p': settled })[0]?.memoryMap.memory).toMatchObject({ reserved: 3 * Gi, free: 0 });
  });

  it('asks again for exactly the memory a container already has (after a restart)', () => {
    const share = { numaNodes: [1], bytes: { memory: Gi } };
    expect(regeneratedHints(share, { memory: Gi })).toEqual({ memory: [hint([1], true)] });
    expect(regeneratedHints(share, { memory: 2 * Gi })).toBeNull();
  });

  it('reads memory and hugepages requests in bytes; a pod needs its biggest init container or the sum of its app containers', () => {
    expect(containerMemoryRequests(ctr('a', '512Mi', { 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' }))).toEqual({ ok: true, requests: { 'hugepages-2Mi': 4 * 2 ** 20, memory: 512 * 2 ** 20 } });
    expect(containerMemoryRequests(ctr('a', '0.5'))).toEqual({ ok: false, error: '[memorymanager] failed to represent quantity as int64' });
    expect(podMemoryRequests(pod([ctr('a', '1Gi'), ctr('b', '1Gi')], [ctr('i', '3Gi')]))).toEqual({ ok: true, requests: { memory: 3 * Gi } });
    expect(podMemoryRequests(pod([ctr('a', '1Gi'), ctr('b', '1Gi')], [ctr('i', '1Gi')]))).toEqual({ ok: true, requests: { memory: 2 * Gi } });
  });
});
