import { describe, expect, it } from 'vitest';
import { generateAPIPodStatus, type PodStatusOptions } from '../../../src/domain/pod/status.js';
import type { PodSyncOutcome } from '../../../src/domain/pod/sync-outcome.js';
import type { Container, Pod, PodCondition, PodStatus } from '../../../src/domain/pod/types.js';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '../../../src/domain/runtime/pod-status.js';

const T0 = Date.UTC(2026, 10, 22, 1, 0, 0);
/** CRI nanoseconds for T0 + seconds. */
const ns = (seconds: number) => String(BigInt(T0 + seconds * 1000) * 1_000_000n);
const iso = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

const web: Container = { name: 'web', image: 'nginx:1.27' };
const side: Container = { name: 'side', image: 'busybox:1.36' };
const init: Container = { name: 'setup', image: 'busybox:1.36' };

function makePod(spec: Partial<Pod['spec']> = {}, extra: Partial<Pod> = {}): Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [web], ...spec }, ...extra };
}

const sandbox = (over: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus => ({
  id: 'sb1', attempt: 0, ready: true, createdAt: ns(0), ips: ['10.0.0.5'], hasNetworkStatus: true, ...over,
});

let nextId = 0;
function running(name: string, startedAt = 1, over: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  nextId += 1;
  return {
    id: `c${nextId}`, name, state: 'running', createdAt: ns(startedAt), startedAt: ns(startedAt), finishedAt: '0', exitCode: 0,
    reason: '', message: '', image: 'docker.io/library/nginx:1.27', imageRef: 'sha256:abc', hash: 1, restartCount: 0, sandboxId: 'sb1', ...over,
  };
}
function exited(name: string, exitCode: number, startedAt: number, finishedAt: number, over: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return running(name, startedAt, { state: 'exited', exitCode, finishedAt: ns(finishedAt), reason: exitCode === 0 ? 'Completed' : 'Error', ...over });
}

function runtime(containers: RuntimeContainerStatus[], sandboxes = [sandbox()]): RuntimePodStatus {
  const newest = sandboxes[0];
  return { uid: 'u1', name: 'p', namespace: 'ns', ips: newest?.ready ? newest.ips : [], sandboxes, containers };
}

const opts = (over: Partial<PodStatusOptions> = {}): PodStatusOptions => ({ readiness: {}, nowMs: T0 + 5000, runtimeName: 'containerd', ...over });
const condition = (s: PodStatus, type: string): PodCondition | undefined => s.conditions?.find((c) => c.type === type);
const short = (c: PodCondition | undefined) => (c ? [c.status, c.reason ?? '', c.message ?? ''] : undefined);

const backoffResult: PodSyncOutcome = {
  podUid: 'u1', ok: false,
  steps: [{ step: 'startContainer', target: 'web', ok: false, reason: 'CrashLoopBackOff', error: { code: 'KLT_ERR_CONTAINER_BACKOFF', message: 'back-off 10s restarting failed container=web pod=ns/p', retryable: true } }],
};

describe('generateAPIPodStatus', () => {
  it.each([
    {
      name: 'pending while the container is being created',
      pod: makePod(),
      rt: runtime([], []),
      o: opts(),
      phase: 'Pending', state: { waiting: { reason: 'ContainerCreating' } }, ready: ['False', 'ContainersNotReady', 'containers with unready status: [web]'],
    },
    {
      name: 'running and ready without a readiness probe',
      pod: makePod(),
      rt: runtime([running('web')]),
      o: opts(),
      phase: 'Running', state: { running: { startedAt: iso(1) } }, ready: ['True', '', ''],
    },
    {
      name: 'running but not ready until its readiness probe succeeds',
      pod: makePod({ containers: [{ ...web, readinessProbe: { httpGet: { port: 80 } } }] }),
      rt: runtime([running('web')]),
      o: opts(),
      phase: 'Running', state: { running: { startedAt: iso(1) } }, ready: ['False', 'ContainersNotReady', 'containers with unready status: [web]'],
    },
    {
      name: 'ready once its readiness probe succeeded',
      pod: makePod({ containers: [{ ...web, readinessProbe: { httpGet: { port: 80 } } }] }),
      rt: runtime([running('web')]),
      o: opts({ readiness: { web: true } }),
      phase: 'Running', state: { running: { startedAt: iso(1) } }, ready: ['True', '', ''],
    },
    {
      name: 'crash-looping: waiting CrashLoopBackOff with the last termination',
      pod: makePod(),
      rt: runtime([exited('web', 1, 1, 2, { restartCount: 3 })]),
      o: opts({ lastSyncResult: backoffResult }),
      phase: 'Running',
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=web pod=ns/p' } },
      ready: ['False', 'ContainersNotReady', 'containers with unready status: [web]'],
    },
    {
      name: 'succeeded under OnFailure when every container exited 0',
      pod: makePod({ restartPolicy: 'OnFailure' }),
      rt: runtime([exited('web', 0, 1, 2)], [sandbox({ ready: false })]),
      o: opts(),
      phase: 'Succeeded', state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(1), finishedAt: iso(2) } }, ready: ['False', 'PodCompleted', ''],
    },
    {
      name: 'failed under Never when a container exited non-zero',
      pod: makePod({ restartPolicy: 'Never' }),
      rt: runtime([exited('web', 2, 1, 2)], [sandbox({ ready: false })]),
      o: opts(),
      phase: 'Failed', state: { terminated: { exitCode: 2, reason: 'Error', startedAt: iso(1), finishedAt: iso(2) } }, ready: ['False', 'PodFailed', ''],
    },
    {
      name: 'running (restarting) under Always when every container exited',
      pod: makePod(),
      rt: runtime([exited('web', 0, 1, 2)]),
      o: opts(),
      phase: 'Running', state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(1), finishedAt: iso(2) } }, ready: ['False', 'ContainersNotReady', 'containers with unready status: [web]'],
    },
    {
      name: 'terminal (being killed) under Always: Succeeded when all exited 0',
      pod: makePod(),
      rt: runtime([exited('web', 0, 1, 2)], [sandbox({ ready: false })]),
      o: opts({ podIsTerminal: true }),
      phase: 'Succeeded', state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(1), finishedAt: iso(2) } }, ready: ['False', 'PodCompleted', ''],
    },
    {
      name: 'a terminal static pod keeps the restart-policy phase (Go TODO #116484)',
      pod: makePod({}, { metadata: { name: 'p', namespace: 'ns', uid: 'u1', annotations: { 'kubernetes.io/config.source': 'file' } } }),
      rt: runtime([exited('web', 0, 1, 2)], [sandbox({ ready: false })]),
      o: opts({ podIsTerminal: true }),
      phase: 'Running', state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: iso(1), finishedAt: iso(2) } }, ready: ['False', 'ContainersNotReady', 'containers with unready status: [web]'],
    },
  ])('$name', ({ pod, rt, o, phase, state, ready }) => {
    const s = generateAPIPodStatus(pod, rt, o);
    expect(s.phase).toBe(phase);
    const cs = s.containerStatuses?.find((c) => c.name === 'web');
    expect(cs?.state).toMatchObject(state);
    expect(Object.keys(cs?.state ?? {})).toEqual(Object.keys(state));
    expect(short(condition(s, 'Ready'))).toEqual(ready);
    expect(short(condition(s, 'ContainersReady'))).toEqual(ready);
  });

  // Kubelet.SyncPod's rewrite for a pod canRunPod refused.
  it.each([
    { name: 'a pod never started', previous: undefined, rt: runtime([], []), phase: 'Pending', waiting: 'Blocked' },
    { name: 'a pod already Failed', previous: { phase: 'Failed' as const }, rt: runtime([exited('web', 1, 1, 2)], [sandbox({ ready: false })]), phase: 'Failed', waiting: undefined },
  ])('shows $name that cannot run with the refusal, phase $phase', ({ previous, rt, phase, waiting }) => {
    const blocked = { reason: 'AppArmor', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host' };
    const s = generateAPIPodStatus(makePod(), rt, opts({ blocked, ...(previous ? { previous } : {}) }));
    expect(s).toMatchObject({ phase, ...blocked });
    expect(s.containerStatuses?.[0]?.state?.waiting?.reason).toBe(waiting);
  });

  it('keeps the terminated instance as lastState of a waiting crash-looping container, with its restart count and ids', () => {
    const rt = runtime([exited('web', 1, 1, 2, { id: 'dead1', restartCount: 3 })]);
    const s = generateAPIPodStatus(makePod(), rt, opts({ lastSyncResult: backoffResult }));
    const cs = s.containerStatuses?.[0];
    expect(cs?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error', containerID: 'containerd://dead1' });
    expect(cs).toMatchObject({ restartCount: 3, ready: false, started: false, containerID: 'containerd://dead1', image: 'docker.io/library/nginx:1.27', imageID: 'sha256:abc' });
  });

  it('keeps the readiness gate\'s condition from pod.status and is Ready only once it is True', () => {
    const gated = (gate?: 'True' | 'False') => makePod({ readinessGates: [{ conditionType: 'example.com/gate' }] }, {
      status: { conditions: gate ? [{ type: 'example.com/gate', status: gate, lastTransitionTime: iso(2) }] : [] },
    });
    const rt = runtime([running('web')]);
    expect(short(condition(generateAPIPodStatus(gated(), rt, opts()), 'Ready')))
      .toEqual(['False', 'ReadinessGatesNotReady', 'corresponding condition of pod readiness gate "example.com/gate" does not exist.']);
    expect(short(condition(generateAPIPodStatus(gated('False'), rt, opts()), 'Ready')))
      .toEqual(['False', 'ReadinessGatesNotReady', 'the status of pod readiness gate "example.com/gate" is not "True", but False']);
    const open = generateAPIPodStatus(gated('True'), rt, opts());
    expect(short(condition(open, 'Ready'))).toEqual(['True', '', '']);
    expect(short(condition(open, 'ContainersReady'))).toEqual(['True', '', '']);
    expect(condition(open, 'example.com/gate')).toEqual({ type: 'example.com/gate', status: 'True', lastTransitionTime: iso(2) });
  });

  it('shows the previous instance as lastState of a restarted running container', () => {
    const rt = runtime([running('web', 20, { id: 'new', restartCount: 1 }), exited('web', 137, 1, 10, { id: 'old', reason: 'Error' })]);
    const s = generateAPIPodStatus(makePod(), rt, opts());
    const cs = s.containerStatuses?.[0];
    expect(cs?.state).toEqual({ running: { startedAt: iso(20) } });
    expect(cs?.lastState?.terminated).toMatchObject({ exitCode: 137, containerID: 'containerd://old' });
    expect(cs?.restartCount).toBe(1);
  });

  it.each([
    { name: 'init container running: Pending, PodInitializing for regular ones', rts: () => [running('setup')], phase: 'Pending', initState: 'running', webReason: 'PodInitializing', initialized: ['False', 'ContainersNotInitialized', 'containers with incomplete status: [setup]'] },
    { name: 'init container done, app not started yet', rts: () => [exited('setup', 0, 1, 2)], phase: 'Pending', initState: 'terminated', webReason: 'PodInitializing', initialized: ['True', '', ''] },
    { name: 'init done and app running', rts: () => [running('web', 3), exited('setup', 0, 1, 2)], phase: 'Running', initState: 'terminated', webReason: undefined, initialized: ['True', '', ''] },
    { name: 'init container failed under Never', rts: () => [exited('setup', 1, 1, 2)], phase: 'Failed', initState: 'terminated', webReason: 'PodInitializing', initialized: ['False', 'ContainersNotInitialized', 'containers with incomplete status: [setup]'] },
  ])('init containers: $name', ({ rts, phase, initState, webReason, initialized }) => {
    const pod = makePod({ initContainers: [init], restartPolicy: 'Never' });
    const s = generateAPIPodStatus(pod, runtime(rts()), opts());
    expect(s.phase).toBe(phase);
    expect(Object.keys(s.initContainerStatuses?.[0]?.state ?? {})).toEqual([initState]);
    expect(s.containerStatuses?.[0]?.state?.waiting?.reason).toBe(webReason);
    expect(short(condition(s, 'Initialized'))).toEqual(initialized);
  });

  it('marks a successfully completed init container ready and never shows it waiting again', () => {
    const pod = makePod({ initContainers: [init] });
    const s = generateAPIPodStatus(pod, runtime([exited('setup', 0, 1, 2), running('web', 3)]), opts({
      lastSyncResult: { podUid: 'u1', ok: false, steps: [{ step: 'startInitContainer', target: 'setup', ok: false, reason: 'ErrImagePull' }] },
    }));
    expect(s.initContainerStatuses?.[0]).toMatchObject({ ready: true, state: { terminated: { exitCode: 0 } } });
  });

  it('reports a sidecar started and ready from its probes, as Go\'s probe manager does for restartable init containers', () => {
    const sidecar: Container = { ...init, name: 'sidecar', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } }, readinessProbe: { exec: { command: ['true'] } } };
    const pod = makePod({ initContainers: [sidecar] });
    const rt = () => runtime([running('sidecar', 1)]);
    const sidecarStatus = (o: PodStatusOptions) => generateAPIPodStatus(pod, rt(), o).initContainerStatuses?.[0];
    expect(sidecarStatus(opts())).toMatchObject({ started: false, ready: false });
    expect(sidecarStatus(opts({ startup: { sidecar: true } }))).toMatchObject({ started: true, ready: false });
    expect(sidecarStatus(opts({ startup: { sidecar: true }, readiness: { sidecar: true } }))).toMatchObject({ started: true, ready: true });
    // Without probes a running sidecar is started and ready; an ordinary init container that runs is neither ready nor done.
    const plain = makePod({ initContainers: [{ ...init, name: 'sidecar', restartPolicy: 'Always' }] });
    expect(generateAPIPodStatus(plain, rt(), opts()).initContainerStatuses?.[0]).toMatchObject({ started: true, ready: true });
    const ordinary = makePod({ initContainers: [{ ...init, name: 'sidecar' }] });
    expect(generateAPIPodStatus(ordinary, rt(), opts()).initContainerStatuses?.[0]).toMatchObject({ started: true, ready: false });
  });

  it('orders conditions as Go does and sorts regular container statuses by name', () => {
    const pod = makePod({ containers: [web, side] }, { status: { conditions: [{ type: 'example.com/Gate', status: 'True' }, { type: 'Ready', status: 'False' }] } });
    const s = generateAPIPodStatus(pod, runtime([running('web'), running('side')]), opts());
    expect(s.conditions?.map((c) => c.type)).toEqual(['example.com/Gate', 'PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(['side', 'web']);
    expect(condition(s, 'Ready')).toEqual({ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: iso(5) });
  });

  it('reports PodReadyToStartContainers False while there is no ready sandbox', () => {
    expect(condition(generateAPIPodStatus(makePod(), runtime([], []), opts()), 'PodReadyToStartContainers')?.status).toBe('False');
    expect(condition(generateAPIPodStatus(makePod(), runtime([]), opts()), 'PodReadyToStartContainers')?.status).toBe('True');
  });

  it('takes pod IPs from the sandbox, and the node IPs for a host-network pod', () => {
    const s = generateAPIPodStatus(makePod(), runtime([running('web')]), opts({ hostIP: '192.168.1.5' }));
    expect(s).toMatchObject({ podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], hostIP: '192.168.1.5', hostIPs: [{ ip: '192.168.1.5' }] });
    const host = generateAPIPodStatus(makePod({ hostNetwork: true }), runtime([running('web')], [sandbox({ ips: [] })]), opts({ hostIP: '192.168.1.5' }));
    expect(host).toMatchObject({ podIP: '192.168.1.5', podIPs: [{ ip: '192.168.1.5' }] });
  });

  it('keeps startTime and lastTransitionTime from the previous status, and moves a transition time when a condition flips', () => {
    const pod = makePod({ containers: [{ ...web, readinessProbe: { exec: { command: ['true'] } } }] });
    const rt = runtime([running('web')]);
    const first = generateAPIPodStatus(pod, rt, opts({ nowMs: T0 + 5000 }));
    const same = generateAPIPodStatus(pod, rt, opts({ nowMs: T0 + 9000, previous: first }));
    expect(same).toEqual(first);
    const flipped = generateAPIPodStatus(pod, rt, opts({ nowMs: T0 + 9000, previous: first, readiness: { web: true } }));
    expect(flipped.startTime).toBe(iso(5));
    expect(condition(flipped, 'Ready')?.lastTransitionTime).toBe(iso(9));
    expect(condition(flipped, 'PodScheduled')?.lastTransitionTime).toBe(iso(5));
  });

  it('never leaves a terminal phase once reported, and forces Failed with the eviction reason', () => {
    const pod = makePod();
    const previous: PodStatus = { phase: 'Succeeded', reason: 'Done', message: 'all done' };
    const s = generateAPIPodStatus(pod, runtime([running('web')]), opts({ previous }));
    expect([s.phase, s.reason, s.message]).toEqual(['Succeeded', 'Done', 'all done']);
    const evicted = generateAPIPodStatus(pod, runtime([running('web')]), opts({ eviction: { reason: 'DeadlineExceeded', message: 'too long' } }));
    expect([evicted.phase, evicted.reason, evicted.message]).toEqual(['Failed', 'DeadlineExceeded', 'too long']);
  });

  it('says which generation of the pod it observed, on the status and on each condition it sets, as Go v1.35 does', () => {
    const pod = makePod({}, { metadata: { name: 'p', namespace: 'ns', uid: 'u1', generation: 3 } });
    const s = generateAPIPodStatus(pod, runtime([running('web')]), opts());
    expect(s.observedGeneration).toBe(3);
    expect(s.conditions?.map((c) => [c.type, c.observedGeneration])).toEqual([
      ['PodReadyToStartContainers', 3], ['Initialized', 3], ['Ready', 3], ['ContainersReady', 3], ['PodScheduled', 3],
    ]);
    const gated = makePod({ readinessGates: [{ conditionType: 'example.com/gate' }] }, {
      metadata: { name: 'p', namespace: 'ns', uid: 'u1', generation: 4 },
      status: { conditions: [{ type: 'example.com/gate', status: 'True', observedGeneration: 1 }] },
    });
    expect(condition(generateAPIPodStatus(gated, runtime([running('web')]), opts()), 'example.com/gate')?.observedGeneration).toBe(1);
    const evicted = generateAPIPodStatus(pod, runtime([running('web')]), opts({
      eviction: { reason: 'Evicted', message: 'low on memory', condition: { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: 'low on memory' } },
    }));
    expect(condition(evicted, 'DisruptionTarget')?.observedGeneration).toBe(3);
  });

  it('keeps the larger generation an earlier status observed, and sets none for a pod without one (a static pod\'s file)', () => {
    const older = makePod({}, { metadata: { name: 'p', namespace: 'ns', uid: 'u1', generation: 2 } });
    expect(generateAPIPodStatus(older, runtime([running('web')]), opts({ previous: { observedGeneration: 5 } })).observedGeneration).toBe(5);
    const fromFile = generateAPIPodStatus(makePod(), runtime([running('web')]), opts());
    expect(fromFile).not.toHaveProperty('observedGeneration');
    expect(fromFile.conditions?.some((c) => 'observedGeneration' in c)).toBe(false);
  });

  it('lists each container\'s volume mounts in its status, before it runs and while it runs', () => {
    const pod = makePod({ containers: [{ ...web, volumeMounts: [{ name: 'cfg', mountPath: '/cfg', readOnly: true }, { name: 'data', mountPath: '/data' }] }] });
    const mounts = [{ name: 'cfg', mountPath: '/cfg', readOnly: true, recursiveReadOnly: 'Disabled' }, { name: 'data', mountPath: '/data' }];
    const waiting = generateAPIPodStatus(pod, runtime([], []), opts());
    expect(waiting.containerStatuses?.[0]?.volumeMounts).toEqual(mounts);
    expect(generateAPIPodStatus(pod, runtime([running('web')]), opts({ previous: waiting })).containerStatuses?.[0]?.volumeMounts).toEqual(mounts);
    expect(generateAPIPodStatus(pod, runtime([running('web')]), opts()).containerStatuses?.[0]?.volumeMounts).toEqual(mounts);
    expect(generateAPIPodStatus(makePod(), runtime([running('web')]), opts()).containerStatuses?.[0]).not.toHaveProperty('volumeMounts');
  });

  it('infers the termination of a container that was running and vanished from the runtime', () => {
    const pod = makePod();
    const previous = generateAPIPodStatus(pod, runtime([running('web', 1, { restartCount: 2 })]), opts());
    const s = generateAPIPodStatus(pod, runtime([]), opts({ previous }));
    const cs = s.containerStatuses?.[0];
    expect(cs?.state?.waiting?.reason).toBe('ContainerCreating');
    expect(cs?.lastState?.terminated).toMatchObject({ exitCode: 137, reason: 'ContainerStatusUnknown' });
    expect(cs?.restartCount).toBe(3);
    expect(s.phase).toBe('Running');
  });

  it('uses the runtime name as the container id scheme and computes the QoS class', () => {
    const pod = makePod({ containers: [{ ...web, resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }] });
    const s = generateAPIPodStatus(pod, runtime([running('web', 1, { id: 'abc' })]), opts({ runtimeName: 'kubelet-ts-embedded' }));
    expect(s.containerStatuses?.[0]?.containerID).toBe('kubelet-ts-embedded://abc');
    expect(s.qosClass).toBe('Guaranteed');
  });

  it('shows started false and ready false while a startup probe has not succeeded', () => {
    const pod = makePod({ containers: [{ ...web, startupProbe: { exec: { command: ['true'] } } }] });
    const before = generateAPIPodStatus(pod, runtime([running('web')]), opts());
    expect(before.containerStatuses?.[0]).toMatchObject({ started: false, ready: false });
    const after = generateAPIPodStatus(pod, runtime([running('web')]), opts({ startup: { web: true } }));
    expect(after.containerStatuses?.[0]).toMatchObject({ started: true, ready: true });
  });
});

describe('generateAPIPodStatus with ephemeral containers', () => {
  const debug = { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'web' };

  it('reports none for a pod without ephemeral containers', () => {
    expect(generateAPIPodStatus(makePod(), runtime([running('web')]), opts()).ephemeralContainerStatuses).toBeUndefined();
  });

  it('reports one waiting until it runs, then running with its image and id, never ready', () => {
    const pod = makePod({ ephemeralContainers: [debug] });
    const waiting = generateAPIPodStatus(pod, runtime([running('web')]), opts());
    expect(waiting.ephemeralContainerStatuses).toEqual([{ name: 'debugger', state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, restartCount: 0, image: 'busybox:1.36', imageID: '' }]);
    const ran = generateAPIPodStatus(pod, runtime([running('web'), running('debugger', 2, { id: 'dbg', image: 'docker.io/library/busybox:1.36', imageRef: 'sha256:bb' })]), opts());
    expect(ran.ephemeralContainerStatuses).toEqual([{
      name: 'debugger', state: { running: { startedAt: iso(2) } }, lastState: {}, ready: false, restartCount: 0,
      image: 'docker.io/library/busybox:1.36', imageID: 'sha256:bb', containerID: 'containerd://dbg',
      // Go reports the (empty) resources of every container with a spec, ephemeral ones too.
      resources: {},
    }]);
    // Neither the phase nor the readiness of the pod looks at it.
    expect(ran.phase).toBe('Running');
    expect(short(condition(ran, 'Ready'))).toEqual(['True', '', '']);
  });

  it('shows a failed start by its reason, and an exit as terminated', () => {
    const pod = makePod({ ephemeralContainers: [debug] });
    const failed: PodSyncOutcome = {
      podUid: 'u1', ok: false,
      steps: [{ step: 'startContainer', target: 'debugger', ok: false, reason: 'CreateContainerConfigError', error: { code: 'KLT_ERR_CONTAINER_CONFIG', message: 'unable to find target container web', retryable: false } }],
    };
    const s = generateAPIPodStatus(pod, runtime([]), opts({ lastSyncResult: failed }));
    expect(s.ephemeralContainerStatuses?.[0]?.state).toEqual({ waiting: { reason: 'CreateContainerConfigError', message: 'unable to find target container web' } });
    const done = generateAPIPodStatus(pod, runtime([running('web'), exited('debugger', 0, 2, 3)]), opts());
    expect(done.ephemeralContainerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });
});
