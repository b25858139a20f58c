import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCpuReconcile } from '../../../src/actors/resource-managers/cpu-reconcile.js';
import { LiveResources } from '../../../src/actors/resource-managers/live-resources.js';
import { EMPTY_INVENTORY } from '../../../src/domain/resource-managers/inventory.js';
import type { Container } from '../../../src/ports/cri.js';
import { inventory, machine } from '../../domain/resource-managers/topologies.js';

/** A CRI runtime that lists running containers and records each update; `failNext` fails one. */
class FakeRuntime {
  readonly updates: { id: string; cpus: string }[] = [];
  failNext = false;
  constructor(readonly containers: { id: string; pod: string; name: string }[]) {}
  listContainers = async (): Promise<Container[]> =>
    this.containers.map((c) => ({ id: c.id, labels: { 'io.kubernetes.pod.uid': c.pod, 'io.kubernetes.container.name': c.name } }) as unknown as Container);
  updateContainerResources = async (id: string, linux: { cpuset_cpus?: string }): Promise<void> => {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('runtime said no');
    }
    this.updates.push({ id, cpus: linux.cpuset_cpus ?? '' });
  };
}

const logger = pino({ level: 'silent' });

describe('the CPU reconcile', () => {
  const setup = () => {
    const runtime = new FakeRuntime([{ id: 'g', pod: 'G', name: 'main' }, { id: 'b', pod: 'B', name: 'main' }, { id: 'x', pod: 'other-kubelet', name: 'main' }]);
    const live = new LiveResources({ ...EMPTY_INVENTORY, cpu: inventory(machine(1, 4, 1), [0]) }, {});
    const reconcile = createCpuReconcile({ runtime: () => runtime, live, activePodUids: () => ['G', 'B'], logger });
    return { runtime, live, reconcile };
  };

  it('puts every running container of an active pod on its cpuset once, and again only when that changes', async () => {
    const { runtime, live, reconcile } = setup();
    await reconcile();
    expect(runtime.updates).toEqual([{ id: 'g', cpus: '0-3' }, { id: 'b', cpus: '0-3' }]);
    await reconcile();
    expect(runtime.updates).toHaveLength(2);
    live.update({ G: { main: { cpus: [2, 3] } } });
    await reconcile();
    expect(runtime.updates.slice(2)).toEqual([{ id: 'g', cpus: '2-3' }, { id: 'b', cpus: '0-1' }]);
  });

  it('tries a failed update again at the next pass', async () => {
    const { runtime, reconcile } = setup();
    runtime.failNext = true;
    expect(await reconcile()).toEqual({ updated: ['b'], failed: ['g'] });
    expect(await reconcile()).toEqual({ updated: ['g'], failed: [] });
  });

  it('does nothing with the none policy', async () => {
    const runtime = new FakeRuntime([{ id: 'g', pod: 'G', name: 'main' }]);
    const reconcile = createCpuReconcile({ runtime: () => runtime, live: new LiveResources(EMPTY_INVENTORY, {}), activePodUids: () => ['G'], logger });
    await reconcile();
    expect(runtime.updates).toEqual([]);
  });
});
