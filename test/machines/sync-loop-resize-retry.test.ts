import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import type { Pod } from '../../src/domain/pod/types.js';
import { EMPTY_INVENTORY } from '../../src/domain/resource-managers/inventory.js';
import { RESIZE_RETRY_PERIOD_MS } from '../../src/domain/resize/retry-order.js';
import { syncLoopMachine } from '../../src/machines/sync-loop.machine.js';
import { inertDeletors, noPodSources } from '../support/sync-loop-fixtures.js';

/** What each fake pod worker was told, by pod uid. */
const told: Record<string, { type: string; resize?: { startedGeneration?: number } }[]> = {};
const fakePodWorker = fromCallback<{ type: string }, { pod: Pod }>(({ input, receive }) => {
  const uid = input.pod.metadata.uid!;
  told[uid] = [];
  receive((e) => void told[uid]!.push(e));
});
const idle = fromCallback(() => {});

const sized = (uid: string, cpu: string, generation = 1): Pod => ({
  metadata: { name: uid, namespace: 'default', uid, generation, annotations: { 'kubernetes.io/config.source': 'api' } },
  spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu, memory: '32Mi' }, limits: { cpu, memory: '32Mi' } } }] },
});

describe('syncLoopMachine: the periodic retry of deferred resizes', () => {
  it('weighs a deferred resize again after the retry period, once what blocked it no longer counts', () => {
    const clock = new SimulatedClock();
    const actor = createActor(syncLoopMachine.provide({
      actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: idle as never, ...inertDeletors },
    }), {
      clock,
      input: {
        nodeName: 'node-a', podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 2,
        node: { name: 'node-a', operatingSystem: 'linux', labels: {}, taints: [], allocatable: { cpuMillis: 1000, memoryBytes: 2 ** 30, ephemeralStorageBytes: 2 ** 30, pods: 110 } },
        resourceManagers: { inventory: EMPTY_INVENTORY, assignments: {} },
      },
    });
    actor.start();
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [sized('a', '400m'), sized('b', '500m')] });
    actor.send({ type: 'pod.config.updated', op: 'UPDATE', source: 'api', pods: [sized('a', '600m', 2)] });
    expect(actor.getSnapshot().context.pods.a?.resizePending?.reason).toBe('Deferred');

    // b ended on its own: it no longer counts, but nothing that retries resizes happened.
    actor.send({ type: 'pod.status.updated', podUid: 'b', status: { phase: 'Succeeded' } });
    clock.increment(RESIZE_RETRY_PERIOD_MS - 1);
    expect(actor.getSnapshot().context.pods.a?.resizePending?.reason).toBe('Deferred');

    clock.increment(1);
    expect(actor.getSnapshot().context.pods.a?.resizePending).toBeUndefined();
    expect(actor.getSnapshot().context.resources.a?.main?.allocated?.requests?.cpu).toBe('600m');
    expect(told.a?.at(-1)).toMatchObject({ type: 'pod.spec.updated', resize: { startedGeneration: 2 } });
    actor.stop();
  });
});
