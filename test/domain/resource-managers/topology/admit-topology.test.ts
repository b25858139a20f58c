import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/domain/pod/types.js';
import { admitResources, type ResourceProvider, type TopologyHint } from '../../../../src/domain/resource-managers/admit.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../../../../src/domain/resource-managers/inventory.js';
import type { MemoryInventory } from '../../../../src/domain/resource-managers/memory/machine-state.js';
import { memoryProvider } from '../../../../src/domain/resource-managers/memory-provider.js';
import type { TopologySettings } from '../../../../src/domain/resource-managers/topology/hint.js';
import { inventory as cpuInventory, machine } from '../topologies.js';

const Gi = 2 ** 30;
const guaranteed = (name: string, memory: string, extra: Record<string, string> = {}): Container => ({
  name, image: 'busybox', resources: { requests: { cpu: '1', memory, ...extra }, limits: { cpu: '1', memory, ...extra } },
});
const pod = (uid: string, containers: Container[], initContainers: Container[] = []): Pod => ({
  metadata: { name: uid, namespace: 'default', uid }, spec: { containers, ...(initContainers.length ? { initContainers } : {}) },
});
const inventory = (topology: Partial<TopologySettings>, memory: MemoryInventory | null = null): ResourceInventory => ({
  ...EMPTY_INVENTORY, memory, topology: { policy: 'none', scope: 'container', options: {}, numaNodes: [0, 1], distances: {}, ...topology },
});

/**
 * A made-up CPU provider on two NUMA nodes with one exclusive CPU each: CPU n sits on node n. It hints
 * the nodes with a free CPU and takes one on the merged affinity, or the first free one without.
 */
const oneCpuPerNode: ResourceProvider = {
  name: 'cpu',
  hints: (ctx, container) => {
    const held = new Set([...Object.values(ctx.assignments), ctx.podAssignment].flatMap((p) => Object.values(p).flatMap((c) => c.cpus ?? [])));
    const wanted = container === null ? ctx.pod.spec.containers.length : 1;
    const free = [0, 1].filter((id) => !held.has(id));
    if (free.length < wanted) return { cpu: [] };
    const hints: TopologyHint[] = wanted === 1 ? free.map((id) => ({ numaNodes: [id], preferred: true })) : [];
    return { cpu: [...hints, { numaNodes: [0, 1], preferred: wanted === 2 }] };
  },
  allocate: (ctx, container, affinity) => {
    const held = new Set([...Object.values(ctx.assignments), ctx.podAssignment].flatMap((p) => Object.values(p).flatMap((c) => c.cpus ?? [])));
    const id = [0, 1].find((n) => !held.has(n) && (affinity === null || affinity.numaNodes.includes(n)));
    return id === undefined ? { ok: false, reason: 'UnexpectedAdmissionError', message: 'not enough cpus available to satisfy request' } : { ok: true, assignment: { cpus: [id] } };
  },
};
/** A device on node 1 only. */
const deviceOnNode1: ResourceProvider = {
  name: 'devices',
  hints: () => ({ 'example.com/gpu': [{ numaNodes: [1], preferred: true }] }),
  allocate: (_ctx, _c, affinity) => ({ ok: true, assignment: { devices: { 'example.com/gpu': [`gpu-on-${affinity?.numaNodes.join('+') ?? 'any'}`] } } }),
};

/** The topology manager's refusal of container `a`, the first of every pod refused here. */
const REFUSED = { admit: false, reason: 'TopologyAffinityError', message: 'Resources cannot be allocated with Topology locality', container: 'a' };

describe('admitResources under the topology manager', () => {
  it('container scope: each container is aligned on its own, a later one seeing what the earlier took', () => {
    const result = admitResources({ pod: pod('p', [guaranteed('a', '1Gi'), guaranteed('b', '1Gi')]), inventory: inventory({ policy: 'single-numa-node' }), assignments: {} }, [oneCpuPerNode]);
    expect(result).toEqual({ admit: true, assignment: { a: { cpus: [0] }, b: { cpus: [1] } } });
  });

  it('puts the CPU beside the device the container also asks for', () => {
    const result = admitResources({ pod: pod('p', [guaranteed('a', '1Gi')]), inventory: inventory({ policy: 'restricted' }), assignments: {} }, [deviceOnNode1, oneCpuPerNode]);
    expect(result).toEqual({ admit: true, assignment: { a: { cpus: [1], devices: { 'example.com/gpu': ['gpu-on-1'] } } } });
  });

  it('pod scope: one merge for the whole pod, every container allocated on it', () => {
    const asked: (string | null)[] = [];
    const recording: ResourceProvider = { ...oneCpuPerNode, hints: (ctx, c) => { asked.push(c?.name ?? null); return oneCpuPerNode.hints(ctx, c); } };
    const twoContainers = pod('p', [guaranteed('a', '1Gi'), guaranteed('b', '1Gi')]);
    expect(admitResources({ pod: twoContainers, inventory: inventory({ policy: 'restricted', scope: 'pod' }), assignments: {} }, [recording])).toEqual({
      admit: true, assignment: { a: { cpus: [0] }, b: { cpus: [1] } },
    });
    expect(asked).toEqual([null]);
    // The pod needs both nodes: single-numa-node refuses it whole, before any allocation.
    expect(admitResources({ pod: twoContainers, inventory: inventory({ policy: 'single-numa-node', scope: 'pod' }), assignments: {} }, [oneCpuPerNode])).toEqual(REFUSED);
  });

  it.each([
    ['restricted', REFUSED],
    ['single-numa-node', REFUSED],
    ['best-effort', { admit: false, reason: 'UnexpectedAdmissionError', message: 'Allocate failed due to not enough cpus available to satisfy request, which is unexpected', container: 'a', provider: 'cpu' }],
  ] as const)('%s: with every CPU held, the pod is refused with %j', (policy, expected) => {
    const result = admitResources({ pod: pod('p', [guaranteed('a', '1Gi')]), inventory: inventory({ policy }), assignments: { other: { x: { cpus: [0, 1] } } } }, [oneCpuPerNode]);
    expect(result).toEqual(expected);
  });

  describe('with the Static memory manager', () => {
    // This machine's shape: one NUMA node, no hugepages allocated.
    const oneNode: MemoryInventory = { nodes: [{ id: 0, memoryBytes: 8 * Gi, hugepages: [{ pageSizeKiB: 2048, pages: 0 }] }], systemReserved: { 0: { memory: 100 * 2 ** 20 } } };
    const single = inventory({ policy: 'single-numa-node', numaNodes: [0] }, oneNode);

    it('pins a Guaranteed pod\'s memory to the node under single-numa-node', () => {
      expect(admitResources({ pod: pod('p', [guaranteed('a', '1Gi')]), inventory: single, assignments: {} }, [memoryProvider])).toEqual({
        admit: true, assignment: { a: { memory: { numaNodes: [0], bytes: { memory: Gi } } } },
      });
    });

    it('pins nothing for a Burstable pod', () => {
      const burstable = pod('p', [{ name: 'a', image: 'busybox', resources: { requests: { memory: '1Gi' } } }]);
      expect(admitResources({ pod: burstable, inventory: single, assignments: {} }, [memoryProvider])).toEqual({ admit: true, assignment: { a: {} } });
    });

    it('refuses hugepages the node does not have with TopologyAffinityError', () => {
      const result = admitResources({ pod: pod('p', [guaranteed('a', '64Mi', { 'hugepages-2Mi': '2Mi' })]), inventory: single, assignments: {} }, [memoryProvider]);
      expect(result).toEqual(REFUSED);
    });

    it('refuses memory beyond what the node has left, and admits it again once the holder is gone', () => {
      const holder = { other: { x: { memory: { numaNodes: [0], bytes: { memory: 7 * Gi } } } } };
      const big = pod('p', [guaranteed('a', '2Gi')]);
      expect(admitResources({ pod: big, inventory: single, assignments: holder }, [memoryProvider])).toEqual(REFUSED);
      expect(admitResources({ pod: big, inventory: { ...single, topology: { ...single.topology, policy: 'none' } }, assignments: holder }, [memoryProvider])).toEqual({
        admit: false, reason: 'UnexpectedAdmissionError',
        message: 'Allocate failed due to [memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available, which is unexpected',
        container: 'a', provider: 'memory',
      });
      expect(admitResources({ pod: big, inventory: single, assignments: {} }, [memoryProvider]).admit).toBe(true);
    });

    it('keeps the init container\'s memory for the app container after it, counted once', () => {
      const result = admitResources({ pod: pod('p', [guaranteed('app', '3Gi')], [guaranteed('init', '2Gi')]), inventory: single, assignments: {} }, [memoryProvider]);
      expect(result).toEqual({ admit: true, assignment: {
        init: { memory: { numaNodes: [0], bytes: { memory: 0 } } },
        app: { memory: { numaNodes: [0], bytes: { memory: 3 * Gi } } },
      } });
    });

    it('on two NUMA nodes aligns CPU and memory on the same node, in both scopes', () => {
      const twoNodes: MemoryInventory = {
        nodes: [{ id: 0, memoryBytes: 4 * Gi, hugepages: [] }, { id: 1, memoryBytes: 4 * Gi, hugepages: [] }],
        systemReserved: { 0: { memory: Gi } },
      };
      const cpuOnNode0Held = { other: { x: { cpus: [0] } } };
      for (const scope of ['container', 'pod'] as const) {
        const inv = inventory({ policy: 'single-numa-node', scope }, twoNodes);
        expect(admitResources({ pod: pod('p', [guaranteed('a', '1Gi')]), inventory: inv, assignments: cpuOnNode0Held }, [oneCpuPerNode, memoryProvider])).toEqual({
          admit: true, assignment: { a: { cpus: [1], memory: { numaNodes: [1], bytes: { memory: Gi } } } },
        });
      }
    });
  });
});

describe('admitResources with the static CPU manager and the Static memory manager', () => {
  // Two sockets of two cores, one NUMA node each: CPUs 0-1 on node 0, 2-3 on node 1; 4Gi per node.
  const twoNodes: MemoryInventory = {
    nodes: [{ id: 0, memoryBytes: 4 * Gi, hugepages: [] }, { id: 1, memoryBytes: 4 * Gi, hugepages: [] }],
    systemReserved: { 0: { memory: Gi } },
  };
  const both = (policy: TopologySettings['policy']): ResourceInventory => ({
    ...inventory({ policy }, twoNodes), cpu: cpuInventory(machine(2, 2, 1)),
  });
  const twoCpus = (name: string): Container => ({ ...guaranteed(name, '1Gi'), resources: { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } });

  it('puts a container\'s CPUs and memory on one NUMA node', () => {
    expect(admitResources({ pod: pod('p', [twoCpus('a')]), inventory: both('single-numa-node'), assignments: {} })).toEqual({
      admit: true, assignment: { a: { cpus: [0, 1], memory: { numaNodes: [0], bytes: { memory: Gi } } } },
    });
  });

  it('moves both to the other node when one node\'s CPUs are held', () => {
    const held = { other: { x: { cpus: [0] } } };
    expect(admitResources({ pod: pod('p', [twoCpus('a')]), inventory: both('restricted'), assignments: held })).toEqual({
      admit: true, assignment: { a: { cpus: [2, 3], memory: { numaNodes: [1], bytes: { memory: Gi } } } },
    });
  });

  it('refuses under single-numa-node when no node has the CPUs left', () => {
    const held = { other: { x: { cpus: [0, 2] } } };
    expect(admitResources({ pod: pod('p', [twoCpus('a')]), inventory: both('single-numa-node'), assignments: held })).toEqual(REFUSED);
  });
});
