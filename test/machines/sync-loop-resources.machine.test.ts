import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, sendParent, setup } from 'xstate';
import type { Pod } from '../../src/domain/pod/types.js';
import type { Assignments, PodAssignment } from '../../src/domain/resource-managers/assignments.js';
import { EMPTY_INVENTORY } from '../../src/domain/resource-managers/inventory.js';
import { syncLoopMachine, type PodAdmissionRejected, type ResourcesChanged } from '../../src/machines/sync-loop.machine.js';
import { inertDeletors, noPodSources } from '../support/sync-loop-fixtures.js';
import { inventory, machine } from '../domain/resource-managers/topologies.js';

/** What each fake pod worker was spawned with, and a kill that ends it at once. */
const spawned: { pod: Pod; assignment?: PodAssignment }[] = [];
const fakePodWorker = setup({ types: { input: {} as { pod: Pod; assignment?: PodAssignment }, context: {} as { uid: string } } }).createMachine({
  context: ({ input }) => {
    spawned.push(input);
    return { uid: input.pod.metadata.uid! };
  },
  initial: 'running',
  states: {
    running: { on: { 'pod.kill.requested': 'done' } },
    done: { entry: sendParent(({ context }) => ({ type: 'pod.worker.terminated', podUid: context.uid })) },
  },
});
const idle = fromCallback(() => {});

const guaranteed = (uid: string): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } } }] },
});

/** A syncLoop on a 2-CPU machine with CPU 0 reserved, started with `kept` as the state files held it. */
function start(kept: Assignments) {
  spawned.length = 0;
  const changes: Assignments[] = [];
  const rejections: PodAdmissionRejected[] = [];
  const recorder = fromCallback<ResourcesChanged>(({ receive }) => receive((e) => void changes.push(e.assignments)));
  const actor = createActor(syncLoopMachine.provide({
    actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: idle as never, ...inertDeletors, resourceManagers: recorder },
  }), {
    input: {
      nodeName: 'node-a', podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 2,
      node: { name: 'node-a', operatingSystem: 'linux', labels: {}, taints: [], allocatable: { cpuMillis: 1000, memoryBytes: 2 ** 30, ephemeralStorageBytes: 2 ** 30, pods: 110 } },
      resourceManagers: { inventory: { ...EMPTY_INVENTORY, cpu: inventory(machine(1, 2, 1), [0]) }, assignments: kept },
    },
  });
  actor.on('pod.admission.rejected', (e) => void rejections.push(e));
  actor.start();
  return { actor, changes, rejections };
}

describe('syncLoopMachine with the static CPU manager', () => {
  it('keeps a share the state file held away from new pods until every source was seen, then drops it', () => {
    const { actor, changes, rejections } = start({ gone: { main: { cpus: [1] } } });
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [guaranteed('early')] });
    expect(rejections).toEqual([expect.objectContaining({ reason: 'UnexpectedAdmissionError' })]);
    expect(actor.getSnapshot().context.cpuPinning).toEqual({ requests: 1, errors: 1 });
    actor.send({ type: 'pod.config.sourcesReady' });
    expect(changes).toEqual([{}]);
    expect(actor.getSnapshot().context.resources).toEqual({});
  });

  it('starts the worker of a pod it admits with its CPUs, persists them, and frees them when the worker is done', () => {
    const { actor, changes } = start({});
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [guaranteed('g')] });
    expect(spawned).toEqual([expect.objectContaining({ assignment: { main: { cpus: [1] } } })]);
    expect(changes).toEqual([{ g: { main: { cpus: [1] } } }]);
    expect(actor.getSnapshot().context.cpuPinning).toEqual({ requests: 1, errors: 0 });
    actor.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [guaranteed('g')] });
    expect(changes.at(-1)).toEqual({});
    expect(actor.getSnapshot().context.resources).toEqual({});
  });

  it('hands a pod re-added after a restart the CPUs the state file kept for it', () => {
    const { actor, changes } = start({ g: { main: { cpus: [1] } } });
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [guaranteed('g')] });
    expect(spawned).toEqual([expect.objectContaining({ assignment: { main: { cpus: [1] } } })]);
    actor.send({ type: 'pod.config.sourcesReady' });
    // Nothing stale: the state file's share is the running pod's.
    expect(changes.every((c) => JSON.stringify(c) === JSON.stringify({ g: { main: { cpus: [1] } } }))).toBe(true);
  });
});
