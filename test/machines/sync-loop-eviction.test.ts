import { describe, expect, it } from 'vitest';
import { fromCallback, sendParent, setup } from 'xstate';
import type { AdmissionNode } from '../../src/domain/pod/admission-node.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { syncLoopMachine, type PodAdmissionRejected, type SyncLoopInput } from '../../src/machines/sync-loop.machine.js';
import { startSyncLoopAmong } from '../support/sync-loop-peers.js';
import { noPodSources } from '../support/sync-loop-fixtures.js';

/** A fake pod worker: records the kill it is asked for and finishes with `{ podUid }`. */
const kills: { uid: string; event: unknown }[] = [];
const fakePodWorker = setup({
  types: { input: {} as { pod: Pod }, context: {} as { uid: string } },
}).createMachine({
  context: ({ input }) => ({ uid: input.pod.metadata.uid ?? '' }),
  initial: 'running',
  states: {
    running: { on: { 'pod.kill.requested': { target: 'done', actions: ({ context, event }) => void kills.push({ uid: context.uid, event }) } } },
    // As the real worker's `terminated`: it tells the syncLoop, which stops it.
    done: { entry: sendParent(({ context }) => ({ type: 'pod.worker.terminated', podUid: context.uid })) },
  },
});

const idle = fromCallback(() => {});

function pod(uid: string, requests?: Record<string, string>): Pod {
  return { metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [{ name: 'main', image: 'busybox', ...(requests ? { resources: { requests } } : {}) }] } };
}

function node(): AdmissionNode {
  return {
    name: 'node-a', operatingSystem: 'linux', labels: { 'kubernetes.io/os': 'linux' }, taints: [],
    allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: 110 },
  };
}

/** A syncLoop beside a fake eviction manager and node shutdown manager that record what they hear. */
function start() {
  kills.length = 0;
  const heard: unknown[] = [];
  const shutdownHeard: unknown[] = [];
  const rejections: PodAdmissionRejected[] = [];
  const machine = syncLoopMachine.provide({
    actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: idle as never, containerDeletor: idle as never },
  });
  // The pod config is a fake here: its input is never read.
  const input: SyncLoopInput = { nodeName: 'node-a', node: node(), podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 1 };
  const loop = startSyncLoopAmong(machine, input, { evictionManager: (e) => void heard.push(e), nodeShutdown: (e) => void shutdownHeard.push(e) });
  loop.on('pod.admission.rejected', (e: PodAdmissionRejected) => void rejections.push(e));
  return { loop, heard, shutdownHeard, rejections };
}

describe('syncLoopMachine and the eviction manager', () => {
  it('refuses a BestEffort pod under MemoryPressure with Go reason and message, and admits a Burstable one', () => {
    const { loop, rejections } = start();
    loop.send({ type: 'node.pressure.changed', conditions: ['MemoryPressure'] });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('be'), pod('burstable', { memory: '10Mi' })] });
    expect(rejections.map((r) => [r.pod.uid, r.reason, r.message])).toEqual([['be', 'Evicted', 'The node had condition: [MemoryPressure]. ']]);
    expect(loop.getSnapshot().context.pods.be?.status).toMatchObject({ phase: 'Failed', reason: 'Evicted', message: 'Pod was rejected: The node had condition: [MemoryPressure]. ' });
    expect(loop.getSnapshot().context.pods.burstable?.lifecycle).toBe('active');
  });

  it('admits again once the pressure is gone', () => {
    const { loop, rejections } = start();
    loop.send({ type: 'node.pressure.changed', conditions: ['DiskPressure'] });
    loop.send({ type: 'node.pressure.changed', conditions: [] });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('be')] });
    expect(rejections).toEqual([]);
  });

  it('kills an evicted pod as an eviction and tells the manager when its worker is done', () => {
    const { loop, heard } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    loop.send({ type: 'pod.evict.requested', podUid: 'u1', gracePeriodSeconds: 1, reason: 'Evicted', message: 'm' });
    expect(kills).toEqual([{ uid: 'u1', event: { type: 'pod.kill.requested', gracePeriodSeconds: 1, reason: 'evicted', eviction: { reason: 'Evicted', message: 'm' } } }]);
    expect(heard).toEqual([{ type: 'pod.eviction.finished', podUid: 'u1', evicted: true }]);
    expect(loop.getSnapshot().context.pods.u1?.lifecycle).toBe('terminated');
  });

  it('answers at once that a pod it does not run was not evicted', () => {
    const { loop, heard } = start();
    loop.send({ type: 'pod.evict.requested', podUid: 'nope', gracePeriodSeconds: 1, reason: 'Evicted', message: 'm' });
    expect(heard).toEqual([{ type: 'pod.eviction.finished', podUid: 'nope', evicted: false }]);
  });
});

describe('syncLoopMachine and the node shutdown manager', () => {
  it('kills a pod with the shutdown\'s status and answers the node shutdown manager, not the eviction manager', () => {
    const { loop, heard, shutdownHeard } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    const condition = { type: 'DisruptionTarget', status: 'True' as const, reason: 'TerminationByKubelet', message: 'm' };
    loop.send({ type: 'pod.evict.requested', podUid: 'u1', gracePeriodSeconds: 10, reason: 'Terminated', message: 'm', condition, requester: 'nodeShutdown' });
    expect(kills).toEqual([{ uid: 'u1', event: { type: 'pod.kill.requested', gracePeriodSeconds: 10, reason: 'evicted', eviction: { reason: 'Terminated', message: 'm', condition } } }]);
    expect(shutdownHeard).toEqual([{ type: 'pod.eviction.finished', podUid: 'u1', evicted: true }]);
    expect(heard).toEqual([]);
    loop.send({ type: 'pod.evict.requested', podUid: 'nope', gracePeriodSeconds: 10, reason: 'Terminated', message: 'm', requester: 'nodeShutdown' });
    expect(shutdownHeard.at(-1)).toEqual({ type: 'pod.eviction.finished', podUid: 'nope', evicted: false });
  });

  it('refuses new pods with NodeShutdown while the node shuts down, and admits again after a cancellation', () => {
    const { loop, rejections } = start();
    loop.send({ type: 'node.shutdown.changed', shuttingDown: true });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('late')] });
    expect(rejections.map((r) => [r.pod.uid, r.reason, r.message])).toEqual([['late', 'NodeShutdown', 'Pod was rejected as the node is shutting down.']]);
    expect(loop.getSnapshot().context.pods.late?.status).toMatchObject({ phase: 'Failed', reason: 'NodeShutdown' });
    loop.send({ type: 'node.shutdown.changed', shuttingDown: false });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('later')] });
    expect(loop.getSnapshot().context.pods.later?.lifecycle).toBe('active');
  });
});
