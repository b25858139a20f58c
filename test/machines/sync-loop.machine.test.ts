import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, sendParent, setup, type AnyActorRef } from 'xstate';
import type { AdmissionNode } from '../../src/domain/pod/admission-node.js';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import { syncLoopMachine, type DeadContainersRemoveRequested, type PodAdmissionRejected, type PodSandboxesRemoveRequested, type SyncLoopInput } from '../../src/machines/sync-loop.machine.js';
import { noPodSources } from '../support/sync-loop-fixtures.js';

/** Records every event a fake child receives, by actor id. */
const received: Record<string, { type: string }[]> = {};

/** The input each fake pod worker was spawned with, in spawn order. */
const spawned: { pod: Pod; runtimeOnly?: { reason: string; gracePeriodSeconds?: number } }[] = [];

/**
 * A fake pod worker: records its input and events; a kill makes it finish with `{ podUid }` (unless
 * the pod is annotated `test/slow-kill`), and so does `test.kill.done` (a runtime-only worker kills
 * without being asked).
 */
const fakePodWorker = setup({
  types: { input: {} as { pod: Pod }, context: {} as { uid: string; slowKill: boolean } },
}).createMachine({
  context: ({ input }) => {
    spawned.push(input);
    return { uid: input.pod.metadata.uid!, slowKill: input.pod.metadata.annotations?.['test/slow-kill'] !== undefined };
  },
  initial: 'running',
  states: {
    running: {
      on: {
        'test.kill.done': { target: 'done' },
        '*': { actions: ({ context, event }) => (received[`pod:${context.uid}`] ??= []).push(event) },
        'pod.kill.requested': { guard: ({ context }) => !context.slowKill, target: 'done', actions: ({ context, event }) => (received[`pod:${context.uid}`] ??= []).push(event) },
      },
    },
    // As the real worker's `terminated`: it tells the syncLoop, which stops it.
    done: { entry: sendParent(({ context }) => ({ type: 'pod.worker.terminated', podUid: context.uid })) },
  },
});

type FakeProbeInput = { podUid: string; container: { name: string }; probe: string; containerRef?: object };
const fakeProbe = setup({ types: { input: {} as FakeProbeInput } }).createMachine({
  context: ({ input }: { input: FakeProbeInput }) => ({ id: `probe:${input.podUid}:${input.container.name}:${input.probe}`, containerRef: input.containerRef }),
  on: { '*': { actions: ({ context, event }) => (received[(context as { id: string }).id] ??= []).push(event) } },
});

const idle = fromCallback(() => {});

/** A fake deletor: records what it is asked, under its id. */
const fakeDeletor = <E extends DeadContainersRemoveRequested | PodSandboxesRemoveRequested>(id: 'containerDeletor' | 'sandboxDeletor') => fromCallback<E>(({ receive }) => {
  receive((event) => void (received[id] ??= []).push(event));
});

function pod(uid: string, name = uid, extra: Partial<Pod['spec']['containers'][number]> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid },
    spec: { containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', ...extra }], terminationGracePeriodSeconds: 7 },
  };
}

/** A 2-core node with 4 GiB allocatable and room for `maxPods`. */
function node(maxPods = 110): AdmissionNode {
  return {
    name: 'node-a', operatingSystem: 'linux', labels: { 'kubernetes.io/os': 'linux', disk: 'ssd' }, taints: [],
    allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: maxPods },
  };
}

/** Admission refusals the machine emitted since the last start(). */
const rejections: PodAdmissionRejected[] = [];

function start(maxPods = 110, allowedUnsafeSysctls?: string[]) {
  for (const k of Object.keys(received)) delete received[k];
  spawned.length = 0;
  rejections.length = 0;
  const machine = syncLoopMachine.provide({
    actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: fakeProbe as never, containerDeletor: fakeDeletor<DeadContainersRemoveRequested>('containerDeletor'), sandboxDeletor: fakeDeletor<PodSandboxesRemoveRequested>('sandboxDeletor') },
  });
  const input: SyncLoopInput = {
    nodeName: 'node-a', node: node(maxPods), podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 2,
    ...(allowedUnsafeSysctls ? { allowedUnsafeSysctls } : {}),
  };
  const actor = createActor(machine, { input });
  actor.on('pod.admission.rejected', (e) => void rejections.push(e));
  actor.start();
  return actor;
}

const children = (a: AnyActorRef) => Object.keys((a.getSnapshot() as { children: Record<string, unknown> }).children).sort();
const types = (id: string) => (received[id] ?? []).map((e) => e.type);

describe('syncLoopMachine', () => {
  it('spawns one pod worker per added pod, named pod:<uid>', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    expect(children(a)).toEqual(['containerDeletor', 'pleg', 'pod:u1', 'pod:u2', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
    expect(a.getSnapshot().context.pods.u1?.lifecycle).toBe('active');
  });

  it('forwards an UPDATE to the pod worker as pod.spec.updated', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'UPDATE', source: 'file', pods: [pod('u1', 'u1', { image: 'other:2' })] });
    expect(types('pod:u1')).toContain('pod.spec.updated');
    expect(a.getSnapshot().context.pods.u1?.pod.spec.containers[0]?.image).toBe('other:2');
  });

  it('hands the worker a RECONCILE only when a readiness gate\'s condition changed what Ready should say', () => {
    const a = start();
    const gated = (gate: 'True' | 'False', ready: 'True' | 'False'): Pod => {
      const p = pod('u1');
      return {
        ...p,
        spec: { ...p.spec, readinessGates: [{ conditionType: 'example.com/gate' }] },
        status: {
          phase: 'Running',
          conditions: [{ type: 'example.com/gate', status: gate }, { type: 'Ready', status: ready }],
          containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'busybox', imageID: '', state: { running: {} } }],
        },
      };
    };
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    // The echo of the kubelet's own status: Ready already says what the gate calls for.
    a.send({ type: 'pod.config.updated', op: 'RECONCILE', source: 'api', pods: [gated('True', 'True')] });
    expect(types('pod:u1')).not.toContain('pod.status.reconciled');
    a.send({ type: 'pod.config.updated', op: 'RECONCILE', source: 'api', pods: [gated('False', 'True')] });
    expect(types('pod:u1')).toContain('pod.status.reconciled');
  });

  it.each(['DELETE', 'REMOVE'] as const)('asks the worker to kill the pod with its grace period on %s', (op) => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op, source: 'file', pods: [pod('u1')] });
    const kill = received['pod:u1']?.find((e) => e.type === 'pod.kill.requested') as { gracePeriodSeconds?: number } | undefined;
    expect(kill?.gracePeriodSeconds).toBe(7);
  });

  it('forgets a removed pod once its worker has terminated, and keeps a deleted one as terminated', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    a.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [pod('u2')] });
    expect(a.getSnapshot().context.pods.u1).toBeUndefined();
    expect(a.getSnapshot().context.pods.u2?.lifecycle).toBe('terminated');
    expect(children(a)).toEqual(['containerDeletor', 'pleg', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
  });

  it('re-adds a pod whose earlier worker terminated, with a fresh worker', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    expect(a.getSnapshot().context.pods.u1?.lifecycle).toBe('active');
    expect(children(a)).toContain('pod:u1');
  });

  it('rejects a pod beyond maxPods with OutOfpods and spawns no worker', () => {
    const a = start(1);
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    const u2 = a.getSnapshot().context.pods.u2;
    expect(u2?.lifecycle).toBe('rejected');
    expect(u2?.status).toEqual({
      phase: 'Failed', reason: 'OutOfpods', qosClass: 'BestEffort',
      message: "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    });
    expect(children(a)).not.toContain('pod:u2');
  });

  describe('admission', () => {
    const cpu = (uid: string, request: string) => pod(uid, uid, { resources: { requests: { cpu: request } } });

    it('counts the pods admitted earlier in the same update against the node', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [cpu('u1', '1500m'), cpu('u2', '600m'), cpu('u3', '500m')] });
      const { pods } = a.getSnapshot().context;
      expect([pods.u1?.lifecycle, pods.u2?.lifecycle, pods.u3?.lifecycle]).toEqual(['active', 'rejected', 'active']);
      expect(pods.u2?.status?.message).toBe("Pod was rejected: Node didn't have enough resource: cpu, requested: 600, used: 1500, capacity: 2000");
      expect(children(a)).toEqual(['containerDeletor', 'pleg', 'pod:u1', 'pod:u3', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
    });

    it('emits each refusal with the reason and message for the Warning event', () => {
      const a = start();
      const picky = pod('u1', 'picky');
      picky.spec.nodeSelector = { disk: 'hdd' };
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [picky] });
      expect(rejections).toEqual([{
        type: 'pod.admission.rejected', pod: { namespace: 'default', name: 'picky', uid: 'u1' },
        reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
      }]);
    });

    it('refuses a pod asking for an unsafe sysctl the node does not allow (SysctlForbidden), before the predicates', () => {
      const withSysctl = (uid: string, name: string): Pod => ({ ...pod(uid), spec: { ...pod(uid).spec, nodeSelector: { disk: 'hdd' }, securityContext: { sysctls: [{ name, value: '1' }] } } });
      start().send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [withSysctl('u1', 'kernel.msgmax')] });
      expect(rejections.map((r) => [r.reason, r.message])).toEqual([['SysctlForbidden', 'forbidden sysctl: "kernel.msgmax" not allowlisted']]);
      // Allowed by the node, the pod goes on to the predicates (and fails its node selector here).
      start(110, ['kernel.msg*']).send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [withSysctl('u1', 'kernel.msgmax')] });
      expect(rejections.map((r) => r.reason)).toEqual(['NodeAffinity']);
    });

    it('frees what a pod held once it is Succeeded or Failed, or its worker is done', () => {
      const a = start(2);
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [cpu('done', '2'), cpu('gone', '1')] });
      a.send({ type: 'pod.status.updated', podUid: 'done', status: { phase: 'Succeeded' } });
      a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [cpu('gone', '1')] });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [cpu('next', '2'), pod('more'), pod('extra')] });
      const { pods } = a.getSnapshot().context;
      expect([pods.next?.lifecycle, pods.more?.lifecycle]).toEqual(['active', 'active']);
      expect(pods.extra?.status?.message).toBe("Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2");
    });

    it('counts a pod being killed until its worker is done', () => {
      const a = start();
      const slow = cpu('u1', '2');
      slow.metadata.annotations = { 'test/slow-kill': '' };
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [slow] });
      a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [slow] });
      expect(a.getSnapshot().context.pods.u1?.lifecycle).toBe('terminating');
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [cpu('u2', '1')] });
      expect(a.getSnapshot().context.pods.u2?.status?.reason).toBe('OutOfcpu');
      (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children['pod:u1']!.send({ type: 'test.kill.done' });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [cpu('u3', '1')] });
      expect(a.getSnapshot().context.pods.u3?.lifecycle).toBe('active');
    });

    it('keeps a refused pod Failed when its source adds it again', () => {
      const a = start(0);
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1', 'u1', { image: 'other:2' })] });
      expect(a.getSnapshot().context.pods.u1).toMatchObject({ lifecycle: 'rejected', status: { reason: 'OutOfpods' }, pod: { spec: { containers: [{ image: 'other:2' }] } } });
      expect(children(a)).toEqual(['containerDeletor', 'pleg', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
      expect(rejections).toHaveLength(1);
    });
  });

  it('asks each pod with a PLEG event to sync, once per relist', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    a.send({ type: 'pleg.events', events: [{ podUid: 'u1', type: 'ContainerStarted' }, { podUid: 'u1', type: 'ContainerDied' }, { podUid: 'zz', type: 'ContainerDied' }] });
    expect(types('pod:u1').filter((t) => t === 'pod.sync.requested')).toHaveLength(1);
    expect(types('pod:u2')).not.toContain('pod.sync.requested');
  });

  it('tells the workers of pods whose every PLEG event was dropped that their runtime view is stale', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    a.send({ type: 'pleg.events', events: [{ podUid: 'u1', type: 'ContainerStarted' }], discarded: 3, discardedPodUids: ['u2', 'zz'] });
    expect(types('pod:u2')).toEqual(expect.arrayContaining(['pod.runtime.unseen']));
    expect(types('pod:u2')).not.toContain('pod.sync.requested');
    expect(types('pod:u1')).not.toContain('pod.runtime.unseen');
  });

  it('skips PLEG-driven syncs while the runtime is not ready, and syncs every pod when it is back', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
    a.send({ type: 'runtime.health.changed', health: 'down', reason: 'container runtime is down' });
    a.send({ type: 'pleg.events', events: [{ podUid: 'u1', type: 'ContainerDied' }] });
    expect(types('pod:u1')).not.toContain('pod.sync.requested');
    expect(a.getSnapshot().context.runtime).toEqual({ healthy: false, reason: 'container runtime is down' });
    a.send({ type: 'runtime.health.changed', health: 'ready', reason: '' });
    expect(types('pod:u1').filter((t) => t === 'pod.sync.requested')).toHaveLength(1);
    expect(types('pod:u2').filter((t) => t === 'pod.sync.requested')).toHaveLength(1);
  });

  describe('dead containers (the pod container deletor)', () => {
    const requests = () => (received.containerDeletor ?? []) as unknown as { podUid: string; containerId: string | null; keep: number }[];
    const died = (podUid: string, containerId: string) => ({ type: 'pleg.events' as const, events: [{ podUid, type: 'ContainerDied', containerId }] });

    it('asks for the older dead instances of a container that died in a running pod, keeping deadContainersKept', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
      a.send({ type: 'pleg.events', events: [{ podUid: 'u1', type: 'ContainerStarted', containerId: 'c2' }, { podUid: 'u1', type: 'ContainerDied', containerId: 'c1' }] });
      expect(requests()).toEqual([{ type: 'pod.deadContainers.remove', podUid: 'u1', containerId: 'c1', keep: 2 }]);
    });

    it('asks for every dead container of a deleted pod once its worker is done, and again on a later death', () => {
      const a = start();
      a.send({ type: 'pod.config.sourcesReady' });
      const deleted = pod('u1');
      deleted.metadata.deletionTimestamp = '2026-11-23T08:00:00Z';
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
      a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [deleted] });
      expect(requests()).toEqual([{ type: 'pod.deadContainers.remove', podUid: 'u1', containerId: null, keep: 0 }]);
      a.send(died('u1', 'c1'));
      expect(requests()[1]).toEqual({ type: 'pod.deadContainers.remove', podUid: 'u1', containerId: null, keep: 0 });
    });

    it('keeps dead instances while a deleted pod is still being killed (Go: not yet terminated)', () => {
      const a = start();
      const slow = pod('u1');
      slow.metadata.annotations = { 'test/slow-kill': '' };
      slow.metadata.deletionTimestamp = '2026-11-23T08:00:00Z';
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [slow] });
      a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [slow] });
      a.send(died('u1', 'c1'));
      expect(requests()).toEqual([{ type: 'pod.deadContainers.remove', podUid: 'u1', containerId: 'c1', keep: 2 }]);
    });

    it('asks for nothing when a pod that stays finishes (a completed pod keeps its last containers for its logs)', () => {
      const a = start();
      a.send({ type: 'pod.config.sourcesReady' });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
      (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children['pod:u1']!.send({ type: 'test.kill.done' });
      expect(a.getSnapshot().context.pods.u1?.lifecycle).toBe('terminated');
      expect(requests()).toEqual([]);
    });

    it('removes every dead container of a pod no source has, but only once every source was seen', () => {
      const a = start();
      a.send(died('zz', 'c1'));
      a.send({ type: 'pod.config.sourcesReady' });
      a.send(died('zz', 'c2'));
      expect(requests().map((r) => [r.containerId, r.keep])).toEqual([['c1', 2], [null, 0]]);
    });

    it('asks for nothing while the runtime is not ready (Go skips the whole iteration)', () => {
      const a = start();
      a.send({ type: 'runtime.health.changed', health: 'down', reason: 'container runtime is down' });
      a.send(died('u1', 'c1'));
      expect(requests()).toEqual([]);
    });
  });

  describe('stopped sandboxes (the pod sandbox deletor)', () => {
    const requests = () => (received.sandboxDeletor ?? []) as unknown as { podUid: string; keep: number }[];
    const plegEvents = (...events: [string, string, string][]) => ({ type: 'pleg.events' as const, events: events.map(([podUid, type, containerId]) => ({ podUid, type, containerId })) });

    it('asks once per pod and batch on a death or a removal, keeping the latest sandbox of a pod that stays', () => {
      const a = start();
      a.send({ type: 'pod.config.sourcesReady' });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1'), pod('u2')] });
      a.send(plegEvents(['u1', 'ContainerDied', 'c1'], ['u1', 'ContainerDied', 's1'], ['u2', 'ContainerStarted', 'c2'], ['u2', 'ContainerChanged', 'c3']));
      expect(requests()).toEqual([{ type: 'pod.sandboxes.remove', podUid: 'u1', keep: 1 }]);
      a.send(plegEvents(['u2', 'ContainerRemoved', 'c2']));
      expect(requests().at(-1)).toEqual({ type: 'pod.sandboxes.remove', podUid: 'u2', keep: 1 });
    });

    it('keeps none of a deleted pod\'s sandboxes once its worker is done, and asks when it is done', () => {
      const a = start();
      a.send({ type: 'pod.config.sourcesReady' });
      const slow = pod('u1');
      slow.metadata.annotations = { 'test/slow-kill': '' };
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [slow] });
      const deleted = { ...slow, metadata: { ...slow.metadata, deletionTimestamp: '2026-11-23T08:00:00Z' } };
      a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'api', pods: [deleted] });
      // Still terminating: its latest sandbox stays.
      a.send(plegEvents(['u1', 'ContainerDied', 's1']));
      expect(requests()).toEqual([{ type: 'pod.sandboxes.remove', podUid: 'u1', keep: 1 }]);
      (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children['pod:u1']!.send({ type: 'test.kill.done' });
      expect(requests()[1]).toEqual({ type: 'pod.sandboxes.remove', podUid: 'u1', keep: 0 });
      a.send(plegEvents(['u1', 'ContainerRemoved', 'c1']));
      expect(requests()[2]).toEqual({ type: 'pod.sandboxes.remove', podUid: 'u1', keep: 0 });
    });

    it('keeps none for a pod no source has once every source was seen, and asks nothing while the runtime is not ready', () => {
      const a = start();
      a.send(plegEvents(['zz', 'ContainerRemoved', 'c1']));
      a.send({ type: 'pod.config.sourcesReady' });
      a.send(plegEvents(['zz', 'ContainerRemoved', 'c2']));
      expect(requests().map((r) => r.keep)).toEqual([1, 0]);
      a.send({ type: 'runtime.health.changed', health: 'down', reason: 'container runtime is down' });
      a.send(plegEvents(['zz', 'ContainerDied', 's1']));
      expect(requests()).toHaveLength(2);
    });

    it('asks nothing when a pod that stays finishes', () => {
      const a = start();
      a.send({ type: 'pod.config.sourcesReady' });
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
      (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children['pod:u1']!.send({ type: 'test.kill.done' });
      expect(requests()).toEqual([]);
    });
  });

  it('moves from waitingForSources to syncing once every source was seen', () => {
    const a = start();
    expect(a.getSnapshot().value).toBe('waitingForSources');
    a.send({ type: 'pod.config.sourcesReady' });
    expect(a.getSnapshot().value).toBe('syncing');
  });

  it('keeps each rejected manifest once, by origin', () => {
    const a = start();
    a.send({ type: 'pod.manifest.rejected', source: 'file', origin: '/m/bad.yaml', reason: 'not YAML' });
    a.send({ type: 'pod.manifest.rejected', source: 'file', origin: '/m/bad.yaml', reason: 'no containers' });
    expect(a.getSnapshot().context.rejectedManifests).toEqual([{ source: 'file', origin: '/m/bad.yaml', reason: 'no containers' }]);
  });

  it('drops a rejected manifest once its source no longer rejects it', () => {
    const a = start();
    a.send({ type: 'pod.manifest.rejected', source: 'file', origin: '/m/bad.yaml', reason: 'not YAML' });
    a.send({ type: 'pod.manifest.rejected', source: 'file', origin: '/m/other.yaml', reason: 'not YAML' });
    a.send({ type: 'pod.manifest.cleared', source: 'file', origin: '/m/bad.yaml' });
    expect(a.getSnapshot().context.rejectedManifests).toEqual([{ source: 'file', origin: '/m/other.yaml', reason: 'not YAML' }]);
  });

  describe('probes', () => {
    const running = (startedAt: string): PodStatus => ({
      phase: 'Running',
      podIP: '10.0.0.9',
      containerStatuses: [{ name: 'main', ready: false, restartCount: 0, image: 'x', imageID: '', state: { running: { startedAt } } }],
    });
    const probed = () => pod('u1', 'u1', { livenessProbe: { exec: { command: ['true'] } }, readinessProbe: { exec: { command: ['true'] } } });

    it('starts one probe worker per probe once the container runs', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [probed()] });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      expect(children(a)).toEqual(['containerDeletor', 'pleg', 'pod:u1', 'podConfig', 'probe:u1:main:liveness', 'probe:u1:main:readiness', 'resourceManagers', 'sandboxDeletor']);
    });

    it('names the container for its probe events as Go does: the pod, fieldPath spec.containers{name}', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [probed()] });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      const probe = (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children['probe:u1:main:liveness'];
      expect(probe?.getSnapshot().context.containerRef).toEqual({ kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: 'u1', uid: 'u1', fieldPath: 'spec.containers{main}' });
    });

    it('tells the probe workers when the container restarted, and starts none twice', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [probed()] });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:01:00Z') });
      expect(types('probe:u1:main:liveness').filter((t) => t === 'probe.container.restarted')).toHaveLength(1);
    });

    it("lifts the startup gate of the container's liveness and readiness workers when its startup probe succeeds", () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1', 'u1', { startupProbe: { exec: { command: ['true'] } }, livenessProbe: { exec: { command: ['true'] } }, readinessProbe: { exec: { command: ['true'] } } })] });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      a.send({ type: 'probe.result.changed', podUid: 'u1', container: 'main', containerId: 'c1', probe: 'startup', result: 'success' });
      expect(types('probe:u1:main:liveness')).toContain('probe.startup.succeeded');
      expect(types('probe:u1:main:readiness')).toContain('probe.startup.succeeded');
      expect(types('probe:u1:main:startup')).not.toContain('probe.startup.succeeded');
      expect(types('pod:u1')).toContain('probe.result.changed');
    });

    it('forwards probe results to the pod worker and stops probe workers with the pod', () => {
      const a = start();
      a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [probed()] });
      a.send({ type: 'pod.status.updated', podUid: 'u1', status: running('2026-11-22T00:00:00Z') });
      a.send({ type: 'probe.result.changed', podUid: 'u1', container: 'main', containerId: 'c1', probe: 'liveness', result: 'failure', observedAtMs: 61_000 });
      expect(types('pod:u1')).toContain('probe.result.changed');
      // With the probe's time: the pod worker computes the status (Ready's lastTransitionTime) at it.
      expect((received['pod:u1'] ?? []).find((e) => e.type === 'probe.result.changed')).toMatchObject({ observedAtMs: 61_000 });
      a.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'file', pods: [probed()] });
      expect(children(a)).toEqual(['containerDeletor', 'pleg', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
    });
  });
});


describe('syncLoopMachine orphans (HandlePodCleanups)', () => {
  const running = (...uids: string[]) => ({ type: 'pleg.events' as const, events: [], runningPodUids: uids });
  const orphanWorkers = () => spawned.filter((s) => s.runtimeOnly).map((s) => s.pod.metadata.uid);
  /** The runtime-only worker of `uid` reports its kill done. */
  const killDone = (a: AnyActorRef, uid: string) => (a.getSnapshot() as { children: Record<string, AnyActorRef> }).children[`pod:${uid}`]!.send({ type: 'test.kill.done' });

  it('kills a running pod that no source has once the sources are ready, with a runtime-only worker and a 1 s grace period', () => {
    const a = start();
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send(running('u1', 'orphan'));
    a.send({ type: 'pod.config.sourcesReady' });
    expect(children(a)).toContain('pod:orphan');
    expect(spawned.find((s) => s.pod.metadata.uid === 'orphan')).toMatchObject({ runtimeOnly: { reason: 'orphaned', gracePeriodSeconds: 1 } });
    expect(orphanWorkers()).toEqual(['orphan']);
    expect(a.getSnapshot().context.pods.orphan).toBeUndefined();
  });

  it('kills nothing before every source has been seen', () => {
    const a = start();
    a.send(running('orphan'));
    expect(orphanWorkers()).toEqual([]);
    expect(children(a)).not.toContain('pod:orphan');
  });

  it('kills an orphan the PLEG reports after the sources became ready', () => {
    const a = start();
    a.send({ type: 'pod.config.sourcesReady' });
    expect(orphanWorkers()).toEqual([]);
    a.send(running('orphan'));
    expect(orphanWorkers()).toEqual(['orphan']);
  });

  it('leaves alone every pod a source has: active, terminating, terminated or rejected', () => {
    const a = start(2);
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('active'), pod('deleted'), pod('rejected')] });
    a.send({ type: 'pod.config.updated', op: 'DELETE', source: 'file', pods: [pod('deleted')] });
    a.send({ type: 'pod.config.sourcesReady' });
    a.send(running('active', 'deleted', 'rejected'));
    expect(orphanWorkers()).toEqual([]);
    expect(a.getSnapshot().context.pods.rejected?.lifecycle).toBe('rejected');
  });

  it('starts one worker per orphan however often the PLEG reports it, and forgets it once the kill is done', () => {
    const a = start();
    a.send({ type: 'pod.config.sourcesReady' });
    a.send(running('orphan'));
    a.send(running('orphan', 'other'));
    a.send({ type: 'runtime.health.changed', health: 'down', reason: 'x' });
    a.send({ type: 'runtime.health.changed', health: 'ready', reason: '' });
    expect(orphanWorkers()).toEqual(['orphan', 'other']);
    killDone(a, 'orphan');
    killDone(a, 'other');
    expect(a.getSnapshot().context.orphans).toEqual({});
    expect(children(a)).toEqual(['containerDeletor', 'pleg', 'podConfig', 'resourceManagers', 'sandboxDeletor']);
  });

  it('kills no orphan while the runtime is not ready, and kills it once the runtime is back', () => {
    const a = start();
    a.send({ type: 'pod.config.sourcesReady' });
    a.send({ type: 'runtime.health.changed', health: 'down', reason: 'container runtime is down' });
    a.send(running('orphan'));
    expect(orphanWorkers()).toEqual([]);
    a.send({ type: 'runtime.health.changed', health: 'ready', reason: '' });
    expect(orphanWorkers()).toEqual(['orphan']);
  });

  it('adds a source pod with an orphan\'s uid only once the orphan is killed, in its latest form', () => {
    const a = start();
    a.send({ type: 'pod.config.sourcesReady' });
    a.send(running('u1'));
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'UPDATE', source: 'file', pods: [pod('u1', 'u1', { image: 'other:2' })] });
    expect(a.getSnapshot().context.pods.u1).toBeUndefined();
    expect(types('pod:u1')).toEqual([]);
    killDone(a, 'u1');
    expect(a.getSnapshot().context.pods.u1).toMatchObject({ lifecycle: 'active', pod: { spec: { containers: [{ image: 'other:2' }] } } });
    expect(spawned.map((s) => [s.pod.metadata.uid, s.runtimeOnly !== undefined])).toEqual([['u1', true], ['u1', false]]);
  });

  it('drops a waiting source pod that its source removed before the orphan was killed', () => {
    const a = start();
    a.send({ type: 'pod.config.sourcesReady' });
    a.send(running('u1'));
    a.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [pod('u1')] });
    a.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'file', pods: [pod('u1')] });
    killDone(a, 'u1');
    expect(a.getSnapshot().context.pods.u1).toBeUndefined();
    expect(spawned).toHaveLength(1);
  });
});

describe('syncLoopMachine in cluster mode', () => {
  /** A syncLoop beside a status manager (system id `statusManager`) that records what it is told. */
  function startInCluster(maxPods: number) {
    const forwarded: { type: string; podUid?: string; status?: PodStatus }[] = [];
    const machine = syncLoopMachine.provide({
      actors: { podConfig: idle as never, pleg: idle as never, podWorker: fakePodWorker as never, probe: fakeProbe as never, containerDeletor: fakeDeletor<DeadContainersRemoveRequested>('containerDeletor'), sandboxDeletor: fakeDeletor<PodSandboxesRemoveRequested>('sandboxDeletor') },
    });
    const parent = setup({
      actors: {
        syncLoop: machine,
        statusManager: fromCallback<{ type: string }>(({ receive }) => { receive((e) => void forwarded.push(e)); }),
      },
    }).createMachine({
      invoke: [
        { src: 'statusManager', systemId: 'statusManager' },
        { id: 'syncLoop', src: 'syncLoop', systemId: 'syncLoop', input: { nodeName: 'n', node: node(maxPods), podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 1 } },
      ],
    });
    const root = createActor(parent).start();
    return { loop: root.system.get('syncLoop') as AnyActorRef, forwarded };
  }

  it('tells the status manager every pod config update, pod status and observed mirror pods', () => {
    const { loop, forwarded } = startInCluster(1);
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    loop.send({ type: 'pod.status.updated', podUid: 'u1', status: { phase: 'Pending' } });
    loop.send({ type: 'api.mirrorPods.observed', pods: [], observedAtMs: 1 });
    expect(forwarded.map((e) => e.type)).toEqual(['pod.config.updated', 'pod.status.updated', 'api.mirrorPods.observed']);
  });

  it('gives the status manager a refused pod\'s Failed status, after the update that added it', () => {
    const { loop, forwarded } = startInCluster(0);
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    expect(forwarded.map((e) => e.type)).toEqual(['pod.config.updated', 'pod.status.updated']);
    expect(forwarded[1]).toMatchObject({ podUid: 'u1', status: { phase: 'Failed', reason: 'OutOfpods' } });
  });
});
