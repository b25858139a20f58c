import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, setup } from 'xstate';
import type { AdmissionNode } from '../../src/domain/pod/admission-node.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { syncLoopMachine, type SyncLoopInput } from '../../src/machines/sync-loop.machine.js';
import { inertDeletors, noPodSources } from '../support/sync-loop-fixtures.js';

/** The pods each fake worker was spawned for, in spawn order (runtime-only ones have no name). */
const spawned: { uid: string; runtimeOnly: boolean }[] = [];

/** A fake pod worker that throws in an action: at once for `test/throw-on-start`, on a spec update for `test/throw-on-update`. */
const throwingPodWorker = setup({
  types: { input: {} as { pod: Pod; runtimeOnly?: object } },
  actions: {
    throwIf: (_, params: { when: boolean }) => {
      if (params.when) throw new Error('worker bug: cannot read properties of undefined');
    },
  },
}).createMachine({
  context: ({ input }) => {
    spawned.push({ uid: input.pod.metadata.uid!, runtimeOnly: input.runtimeOnly !== undefined });
    return { annotations: input.pod.metadata.annotations ?? {} };
  },
  entry: { type: 'throwIf', params: ({ context }) => ({ when: 'test/throw-on-start' in context.annotations }) },
  on: { 'pod.spec.updated': { actions: { type: 'throwIf', params: ({ context }) => ({ when: 'test/throw-on-update' in context.annotations }) } } },
});

/** A fake probe worker that throws on its first event. */
const throwingProbe = setup({}).createMachine({
  on: { '*': { actions: () => { throw new Error('probe bug'); } } },
});

const idle = fromCallback(() => {});

function pod(uid: string, annotations: Record<string, string> = {}, spec: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name: `web-${uid}`, namespace: 'default', uid, annotations }, spec: { containers: [{ name: 'main', image: 'busybox' }], ...spec } };
}

const node: AdmissionNode = {
  name: 'node-a', operatingSystem: 'linux', labels: {}, taints: [],
  allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: 110 },
};

function start() {
  spawned.length = 0;
  const machine = syncLoopMachine.provide({ actors: { podConfig: idle as never, pleg: idle as never, podWorker: throwingPodWorker as never, probe: throwingProbe as never, ...inertDeletors } });
  const input: SyncLoopInput = { nodeName: 'node-a', node, podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 2 };
  const actor = createActor(machine, { input });
  const failures: { actorId: string; message: string }[] = [];
  const warnings: { reason: string; message: string }[] = [];
  actor.on('pod.actor.failed', (e) => void failures.push({ actorId: e.actorId, message: e.message }));
  actor.on('pod.admission.rejected', (e) => void warnings.push({ reason: e.reason, message: e.message }));
  actor.start();
  return { actor, failures, warnings };
}

describe('syncLoop: a pod worker that throws fails its pod only', () => {
  it.each(['test/throw-on-start', 'test/throw-on-update'])('%s: the pod is Failed, a runtime-only worker kills it, the other pod and the loop go on', (annotation) => {
    const { actor, failures, warnings } = start();
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('good'), pod('bad', { [annotation]: '' })] });
    actor.send({ type: 'pod.config.updated', op: 'UPDATE', source: 'file', pods: [pod('bad', { [annotation]: '' })] });
    const snap = actor.getSnapshot();
    expect(snap.status).toBe('active');
    expect(snap.context.pods.good?.lifecycle).toBe('active');
    expect(snap.context.pods.bad?.lifecycle).toBe('rejected');
    expect(snap.context.pods.bad?.status).toMatchObject({ phase: 'Failed', reason: 'KubeletWorkerFailed', message: expect.stringContaining('worker bug: cannot read properties of undefined') });
    expect(snap.context.orphans).toEqual({ bad: { deferred: null } });
    expect(spawned).toEqual([{ uid: 'good', runtimeOnly: false }, { uid: 'bad', runtimeOnly: false }, { uid: 'bad', runtimeOnly: true }]);
    expect(failures).toEqual([{ actorId: 'pod:bad', message: 'worker bug: cannot read properties of undefined' }]);
    expect(warnings).toEqual([{ reason: 'KubeletWorkerFailed', message: expect.stringContaining('worker bug') }]);
    // Removed from its source while its kill runs: forgotten.
    actor.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'file', pods: [pod('bad')] });
    expect(actor.getSnapshot().context.pods.bad).toBeUndefined();
    actor.stop();
  });

  it('a probe worker that throws fails its pod, not the loop', () => {
    const { actor, failures } = start();
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('good'), pod('probed', {}, { containers: [{ name: 'main', image: 'busybox', livenessProbe: { exec: { command: ['true'] } } }] })] });
    const running = { phase: 'Running' as const, containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'busybox', imageID: '', containerID: 'c1', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }] };
    actor.send({ type: 'pod.status.updated', podUid: 'probed', status: running as never });
    actor.send({ type: 'pod.status.updated', podUid: 'probed', status: { ...running, containerStatuses: [{ ...running.containerStatuses[0]!, restartCount: 1, state: { running: { startedAt: '2026-01-01T00:01:00Z' } } }] } as never });
    const snap = actor.getSnapshot();
    expect(snap.status).toBe('active');
    expect(failures).toEqual([{ actorId: 'probe:probed:main:liveness', message: 'probe bug' }]);
    expect(snap.context.pods.probed?.lifecycle).toBe('rejected');
    expect(snap.context.pods.good?.lifecycle).toBe('active');
    actor.stop();
  });
});

describe('syncLoop: ids and names no two actors may share', () => {
  it('pod u1 and pod u1:a each get a worker', () => {
    const { actor } = start();
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u1:a')] });
    expect(actor.getSnapshot().status).toBe('active');
    expect(Object.keys(actor.getSnapshot().children).sort()).toEqual(expect.arrayContaining(['pod:u1', 'pod:u1%3Aa']));
    actor.stop();
  });

  it('a pod with two volumes of one name, or two containers of one name, is refused with the fields named', () => {
    const { actor, warnings } = start();
    const twoVolumes = pod('v2', {}, { volumes: [{ name: 'd', emptyDir: {} }, { name: 'd', emptyDir: {} }] });
    const twoContainers = pod('c2', {}, { initContainers: [{ name: 'main', image: 'busybox' }] });
    actor.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [twoVolumes, twoContainers, pod('good')] });
    const pods = actor.getSnapshot().context.pods;
    expect(pods.v2?.status).toEqual(expect.objectContaining({ phase: 'Failed', reason: 'InvalidPodSpec', message: 'Pod was rejected: the kubelet cannot run this pod: spec.volumes[1].name: Duplicate value: "d"' }));
    expect(pods.c2?.status?.message).toBe('Pod was rejected: the kubelet cannot run this pod: spec.containers[0].name: Duplicate value: "main"');
    expect(pods.good?.lifecycle).toBe('active');
    expect(spawned.map((s) => s.uid)).toEqual(['good']);
    expect(warnings.map((w) => w.reason)).toEqual(['InvalidPodSpec', 'InvalidPodSpec']);
    actor.stop();
  });
});
