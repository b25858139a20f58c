import { describe, expect, it } from 'vitest';
import { fromCallback, sendParent, setup, type AnyActorRef } from 'xstate';
import type { AdmissionNode } from '../../src/domain/pod/admission-node.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { syncLoopMachine, type SyncLoopInput } from '../../src/machines/sync-loop.machine.js';
import { startSyncLoopAmong } from '../support/sync-loop-peers.js';
import { noPodSources } from '../support/sync-loop-fixtures.js';

/** A fake pod worker: a kill request (or `test.kill.done`, for a runtime-only one) makes it finish with `{ podUid }`. */
const fakePodWorker = setup({
  types: { input: {} as { pod: Pod }, context: {} as { uid: string } },
}).createMachine({
  context: ({ input }) => ({ uid: input.pod.metadata.uid }),
  initial: 'running',
  states: {
    running: { on: { 'pod.kill.requested': { target: 'done' }, 'test.kill.done': { target: 'done' } } },
    // As the real worker's `terminated`: it tells the syncLoop, which stops it.
    done: { entry: sendParent(({ context }) => ({ type: 'pod.worker.terminated', podUid: context.uid })) },
  },
});

const idle = fromCallback(() => {});

function pod(uid: string): Pod {
  return { metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0' }], terminationGracePeriodSeconds: 7 } };
}

function node(): AdmissionNode {
  return {
    name: 'node-a', operatingSystem: 'linux', labels: { 'kubernetes.io/os': 'linux' }, taints: [],
    allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: 110 },
  };
}

type VolumeRequest =
  | { type: 'volumes.pod.release'; podUid: string; removeDirectory: boolean }
  | { type: 'volumes.pods.known'; podUids: string[] };

/** A syncLoop beside a fake volume manager and container manager (by their system ids) that record what they are told. */
function start() {
  const told: VolumeRequest[] = [];
  const cgroupsTold: { type: 'cgroups.pods.running'; podUids: string[] }[] = [];
  const machine = syncLoopMachine.provide({
    actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: idle as never, containerDeletor: idle as never },
  });
  // The pod config is a fake here: its input is never read.
  const input: SyncLoopInput = { nodeName: 'node-a', node: node(), podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 1 };
  const loop = startSyncLoopAmong(machine, input, {
    volumeManager: (e) => void told.push(e as VolumeRequest),
    containerManager: (e) => void cgroupsTold.push(e as (typeof cgroupsTold)[number]),
  });
  const worker = (uid: string) => (loop.getSnapshot() as { children: Record<string, AnyActorRef> }).children[`pod:${uid}`];
  return { loop, told, cgroupsTold, worker };
}

describe('syncLoopMachine and the volume manager', () => {
  it.each(['Succeeded', 'Failed'] as const)('tears the volumes of a pod down, keeping its directory, once when its status reaches %s', (phase) => {
    const { loop, told } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1'), pod('u2')] });
    loop.send({ type: 'pod.status.updated', podUid: 'u1', status: { phase: 'Running' } });
    loop.send({ type: 'pod.status.updated', podUid: 'u2', status: { phase: 'Pending' } });
    expect(told).toEqual([]);
    loop.send({ type: 'pod.status.updated', podUid: 'u1', status: { phase } });
    loop.send({ type: 'pod.status.updated', podUid: 'u1', status: { phase, message: 'again' } });
    expect(told).toEqual([{ type: 'volumes.pod.release', podUid: 'u1', removeDirectory: false }]);
    expect(loop.getSnapshot().context.pods.u1?.volumesReleased).toBe(true);
  });

  it('ignores the status of a pod it does not have', () => {
    const { loop, told } = start();
    loop.send({ type: 'pod.status.updated', podUid: 'zz', status: { phase: 'Succeeded' } });
    expect(told).toEqual([]);
  });

  it('tears the volumes of a pod down and removes its directory once its worker is done', () => {
    const { loop, told } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    loop.send({ type: 'pod.status.updated', podUid: 'u1', status: { phase: 'Succeeded' } });
    loop.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [pod('u1')] });
    expect(told).toEqual([
      { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: false },
      { type: 'volumes.pod.release', podUid: 'u1', removeDirectory: true },
    ]);
  });

  it('removes the directory of an orphan once its runtime-only worker is done', () => {
    const { loop, told, worker } = start();
    loop.send({ type: 'pod.config.sourcesReady' });
    loop.send({ type: 'pleg.events', events: [], runningPodUids: ['orphan'] });
    told.length = 0;
    worker('orphan')!.send({ type: 'test.kill.done' });
    expect(told).toEqual([{ type: 'volumes.pod.release', podUid: 'orphan', removeDirectory: true }]);
  });

  it('asks for the orphaned pod directories sweep once, on the first pod.config.sourcesReady, keeping every pod it has and every orphan it kills', () => {
    const { loop, told } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    loop.send({ type: 'pleg.events', events: [], runningPodUids: ['u1', 'orphan'] });
    expect(told).toEqual([]);
    loop.send({ type: 'pod.config.sourcesReady' });
    expect(told).toEqual([{ type: 'volumes.pods.known', podUids: ['u1', 'u2', 'orphan'] }]);
    loop.send({ type: 'pod.config.sourcesReady' });
    expect(told).toHaveLength(1);
  });
});

describe('syncLoopMachine and the container manager', () => {
  it('names the pods that may run once every source was seen, and again when a worker is done', () => {
    const { loop, cgroupsTold, worker } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u2'), pod('u1')] });
    expect(cgroupsTold).toEqual([]);
    loop.send({ type: 'pod.config.sourcesReady' });
    expect(cgroupsTold).toEqual([{ type: 'cgroups.pods.running', podUids: ['u1', 'u2'] }]);
    loop.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [pod('u1')] });
    expect(worker('u1')).toBeUndefined();
    expect(cgroupsTold.at(-1)).toEqual({ type: 'cgroups.pods.running', podUids: ['u2'] });
  });

  it('tells it nothing before every source was seen', () => {
    const { loop, cgroupsTold } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    loop.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [pod('u1')] });
    expect(cgroupsTold).toEqual([]);
  });
});
