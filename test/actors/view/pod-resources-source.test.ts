import { describe, expect, it } from 'vitest';
import { podResourcesSource } from '../../../src/actors/view/pod-resources-source.js';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../../../src/domain/resource-managers/inventory.js';
import type { PodLifecycle } from '../../../src/domain/sync-loop/state.js';
import type { SyncLoopContext } from '../../../src/machines/sync-loop.machine.js';

const entry = (name: string, lifecycle: PodLifecycle, o: { phase?: PodStatus['phase']; removed?: boolean } = {}) => ({
  pod: { metadata: { uid: `uid-${name}`, name, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'pause' }] } } satisfies Pod,
  lifecycle, removed: o.removed ?? false, status: o.phase ? { phase: o.phase } : null, probedStarts: {},
});

const STATIC_CPUS: ResourceInventory = {
  ...EMPTY_INVENTORY,
  devices: { 'example.com/resource': [{ id: 'Dev-1', healthy: true, numaNodes: [] }] },
  cpu: {
    topology: { cpus: [{ id: 0, core: 0, socket: 0, numaNode: 0 }, { id: 1, core: 1, socket: 0, numaNode: 0 }] },
    reserved: [0],
    options: { fullPcpusOnly: false, distributeCpusAcrossNuma: false },
  },
};

function context(inventory: ResourceInventory = EMPTY_INVENTORY): SyncLoopContext {
  return {
    pods: Object.fromEntries([
      entry('running', 'active', { phase: 'Running' }),
      entry('stopping', 'terminating', { phase: 'Running' }),
      entry('completed', 'active', { phase: 'Succeeded' }),
      entry('refused', 'rejected', { phase: 'Failed' }),
      entry('ended', 'terminated', { phase: 'Failed' }),
      entry('gone', 'terminating', { removed: true }),
    ].map((e) => [e.pod.metadata.uid, e])),
    resources: { 'uid-running': { app: { cpus: [1] } } },
    inventory,
  } as unknown as SyncLoopContext;
}

describe('podResourcesSource', () => {
  it("marks active what Go's GetActivePods keeps, and leaves out what the pod manager dropped", () => {
    const { pods } = podResourcesSource(() => context()).state();
    expect(pods.map((p) => [p.pod.metadata.name, p.active])).toEqual([
      ['running', true], ['stopping', true], ['completed', false], ['refused', false], ['ended', false],
    ]);
  });

  it("answers the syncLoop's assignments, and its inventory as what the node can give: every CPU but the reserved with the static policy", () => {
    const state = podResourcesSource(() => context(STATIC_CPUS)).state();
    expect(state.assignments).toEqual({ 'uid-running': { app: { cpus: [1] } } });
    expect(state.allocatable).toEqual({ devices: STATIC_CPUS.devices, cpus: [1], memory: [] });
  });

  it('gives no CPU with the none policy, and nothing before the syncLoop runs', () => {
    expect(podResourcesSource(() => context()).state().allocatable.cpus).toEqual([]);
    expect(podResourcesSource(() => undefined).state()).toEqual({ pods: [], assignments: {}, allocatable: { devices: {}, cpus: [], memory: [] } });
  });

  it('builds the state once per snapshot of the syncLoop', () => {
    const ctx = context();
    const source = podResourcesSource(() => ctx);
    expect(source.state()).toBe(source.state());
  });

  it('keeps the state across syncLoop changes that leave the pods, assignments and inventory as they were, and rebuilds it when one changes', () => {
    const ctx = context();
    let now: SyncLoopContext = ctx;
    const source = podResourcesSource(() => now);
    const first = source.state();
    now = { ...ctx, runtimePodUids: ['other'] } as SyncLoopContext;
    expect(source.state()).toBe(first);
    now = { ...ctx, resources: {} } as SyncLoopContext;
    expect(source.state()).not.toBe(first);
  });
});
