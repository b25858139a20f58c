import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { MetricsCollector } from '../../../src/actors/view/metrics-collector.js';
import { ProbeMetricsCollector } from '../../../src/actors/view/probe-metrics-collector.js';
import { createKubeletView, type KubeletViewSources } from '../../../src/actors/view/kubelet-view.js';
import type { MachineInfo } from '../../../src/domain/node/host-types.js';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';
import type { SyncLoopContext } from '../../../src/machines/sync-loop.machine.js';
import type { ExecSyncResponse } from '../../../src/ports/cri.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'prod', uid: 'uid-web' },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: 'busybox' }, { name: 'idle', image: 'busybox' }],
    ephemeralContainers: [{ name: 'debugger', image: 'busybox', targetContainerName: 'app' }],
  },
};
const status: PodStatus = {
  initContainerStatuses: [{ name: 'init', image: 'busybox', imageID: '', ready: false, restartCount: 0, containerID: 'embedded://init-1', state: { terminated: { exitCode: 0, containerID: 'embedded://init-1' } } }],
  containerStatuses: [
    { name: 'app', image: 'busybox', imageID: '', ready: true, restartCount: 1, containerID: 'containerd://abc123', state: { running: { startedAt: '2024-01-01T00:00:00Z' } } },
    { name: 'idle', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
  ],
  ephemeralContainerStatuses: [
    { name: 'debugger', image: 'busybox', imageID: '', ready: false, restartCount: 0, containerID: 'containerd://dbg1', state: { running: { startedAt: '2024-01-01T00:00:01Z' } } },
  ],
};

function view(over: Partial<KubeletViewSources> = {}, lifecycle = 'active') {
  const clock = new SimulatedClock();
  const execs: Array<[string, string[], number]> = [];
  const ctx = { pods: { 'uid-web': { pod, status, lifecycle, removed: false, probedStarts: {} } } } as unknown as SyncLoopContext;
  const v = createKubeletView({
    syncLoop: () => ctx,
    pleg: () => undefined,
    configz: () => ({ kubeletconfig: {} }),
    metrics: new MetricsCollector(clock, () => '', 0),
    probeMetrics: new ProbeMetricsCollector(clock, () => '', () => undefined, 0),
    execSync: () => async (id, cmd, timeout): Promise<ExecSyncResponse> => {
      execs.push([id, cmd, timeout]);
      return { stdout: Buffer.from('hi'), stderr: Buffer.alloc(0), exit_code: 3 };
    },
    runtimeCalls: () => new Map(),
    statsSummary: () => Promise.reject(new Error('no stats in these tests')),
    ...over,
  });
  return { v, execs };
}

describe('createKubeletView: /run lookups', () => {
  it('finds the running container by the runtime id in its status', () => {
    expect(view().v.runningContainer('prod', 'web', 'app')).toEqual({ found: 'running', containerId: 'abc123' });
    expect(view().v.runningContainer('prod', 'web', 'app', 'uid-web')).toEqual({ found: 'running', containerId: 'abc123' });
  });

  it('finds a running ephemeral container by its name', () => {
    expect(view().v.runningContainer('prod', 'web', 'debugger')).toEqual({ found: 'running', containerId: 'dbg1' });
  });

  it('tells a missing pod, a wrong UID, a missing container and a container not running apart', () => {
    const { v } = view();
    expect(v.runningContainer('default', 'web', 'app')).toEqual({ found: 'noPod' });
    expect(v.runningContainer('prod', 'web', 'app', 'uid-other')).toEqual({ found: 'noPod' });
    expect(v.runningContainer('prod', 'web', 'sidecar')).toEqual({ found: 'noContainer' });
    expect(v.runningContainer('prod', 'web', 'idle')).toEqual({ found: 'notRunning' });
    expect(v.runningContainer('prod', 'web', 'init')).toEqual({ found: 'notRunning' });
  });

  it('does not find a terminated pod', () => {
    expect(view({}, 'terminated').v.runningContainer('prod', 'web', 'app')).toEqual({ found: 'noPod' });
  });

  it('runs the command through ExecSync without a command timeout, as Go\'s RunInContainer', async () => {
    const { v, execs } = view();
    expect(await v.execInContainer('abc123', ['echo', 'hi'])).toEqual({ stdout: Buffer.from('hi'), stderr: Buffer.alloc(0), exitCode: 3 });
    expect(execs).toEqual([['abc123', ['echo', 'hi'], 0]]);
  });

  it('rejects with KLT_ERR_CRI_UNAVAILABLE before the runtime is connected', async () => {
    await expect(view({ execSync: () => undefined }).v.execInContainer('abc123', ['true'])).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
  });
});

describe('createKubeletView: container log paths', () => {
  /** The runtime's ContainerStatus, answering a log path per container ID. */
  const runtime = (paths: Record<string, string>, asked: string[] = []) => ({
    streaming: () => ({
      containerStatus: async (id: string) => {
        asked.push(id);
        if (!(id in paths)) throw new Error(`rpc error: code = NotFound desc = container ${JSON.stringify(id)} not found`);
        return { status: { log_path: paths[id] } };
      },
    }) as unknown as ReturnType<NonNullable<KubeletViewSources['streaming']>>,
  });

  it('asks the runtime for the log path of the instance the status names', async () => {
    const asked: string[] = [];
    const { v } = view(runtime({ abc123: '/var/log/pods/prod_web_uid-web/app/1.log', 'init-1': '/var/log/pods/prod_web_uid-web/init/0.log', dbg1: '/var/log/pods/prod_web_uid-web/debugger/0.log' }, asked));
    expect(await v.containerLogPath('prod', 'web', 'app', false)).toEqual({ path: '/var/log/pods/prod_web_uid-web/app/1.log' });
    expect(await v.containerLogPath('prod', 'web', 'init', false)).toEqual({ path: '/var/log/pods/prod_web_uid-web/init/0.log' });
    expect(await v.containerLogPath('prod', 'web', 'debugger', false)).toEqual({ path: '/var/log/pods/prod_web_uid-web/debugger/0.log' });
    expect(asked).toEqual(['abc123', 'init-1', 'dbg1']);
  });

  it('says why there is no log in Go\'s words: no previous instance, waiting to start, an instance the runtime no longer has', async () => {
    const { v } = view(runtime({}));
    expect(await v.containerLogPath('prod', 'web', 'app', true)).toEqual({ error: 'previous terminated container "app" in pod "web" not found' });
    expect(await v.containerLogPath('prod', 'web', 'idle', false)).toEqual({ error: 'container "idle" in pod "web" is waiting to start: ContainerCreating' });
    expect(await v.containerLogPath('prod', 'web', 'app', false)).toEqual({ error: 'failed to get container status "abc123": rpc error: code = NotFound desc = container "abc123" not found' });
    expect(await view().v.containerLogPath('prod', 'web', 'app', false)).toEqual({ error: 'failed to get container status "abc123": the container runtime is not connected yet' });
  });

  it('finds the log of a pod whose worker has terminated (a finished restartPolicy: Never pod), as Go serves it', async () => {
    expect(await view({ ...runtime({ abc123: '/l/1.log' }) }, 'terminated').v.containerLogPath('prod', 'web', 'app', false)).toEqual({ path: '/l/1.log' });
  });

  it('prefers the pod running under a name over a terminated one of the same name', async () => {
    const next: Pod = { ...pod, metadata: { ...pod.metadata, uid: 'uid-next' } };
    const nextStatus: PodStatus = { containerStatuses: [{ ...status.containerStatuses![0]!, containerID: 'containerd://next' }] };
    const ctx = { pods: {
      'uid-web': { pod, status, lifecycle: 'terminated', removed: false, probedStarts: {} },
      'uid-next': { pod: next, status: nextStatus, lifecycle: 'active', removed: false, probedStarts: {} },
    } } as unknown as SyncLoopContext;
    expect(await view({ syncLoop: () => ctx, ...runtime({ abc123: '/old.log', next: '/next.log' }) }).v.containerLogPath('prod', 'web', 'app', false)).toEqual({ path: '/next.log' });
  });
});

describe('createKubeletView: what it answers again (#7)', () => {
  const withPods = (names: string[]) =>
    ({ pods: Object.fromEntries(names.map((name) => [`uid-${name}`, { pod: { ...pod, metadata: { ...pod.metadata, name, uid: `uid-${name}` } }, status, lifecycle: 'active', removed: false, probedStarts: {} }])) }) as unknown as SyncLoopContext;

  it('answers the same pod list while the syncLoop\'s context is the same, and a new one when it changes', () => {
    let ctx = withPods(['web']);
    const { v } = view({ syncLoop: () => ctx });
    const first = v.pods();
    expect(v.pods()).toBe(first);
    ctx = withPods(['web', 'db']);
    const second = v.pods() as readonly Pod[];
    expect(second).not.toBe(first);
    expect(second.map((p) => p.metadata.name)).toEqual(['web', 'db']);
  });

  it('answers one metrics snapshot for metricsMaxAgeMs, then builds a fresh one', () => {
    const clock = new SimulatedClock();
    let ctx = withPods(['web']);
    const { v } = view({ syncLoop: () => ctx, clock, metricsMaxAgeMs: 1000 });
    const first = v.metrics() as { runningPods: number };
    expect(first.runningPods).toBe(1);
    ctx = withPods(['web', 'db']);
    clock.increment(999);
    expect(v.metrics()).toBe(first);
    clock.increment(1);
    expect((v.metrics() as { runningPods: number }).runningPods).toBe(2);
  });

  it('builds the metrics per call without a max age', () => {
    const { v } = view();
    expect(v.metrics()).not.toBe(v.metrics());
  });
});

describe('createKubeletView: metrics', () => {
  it('reads the PLEG\'s discarded events from its context, 0 before it has any', async () => {
    expect((await view().v.metrics()).plegDiscardedEvents).toBe(0);
    expect((await view({ pleg: () => ({ lastRelistAtMs: 5, discardedEvents: 200 }) }).v.metrics()).plegDiscardedEvents).toBe(200);
  });

  it('hands each pod\'s latest volume stats to /metrics, ephemeral and persistent volumes alike, and none when not wired', async () => {
    const fs = { time: '2026-01-01T00:00:00Z', usedBytes: 1n };
    const volumeStats = () => new Map([['uid-web', { ephemeral: [{ ...fs, name: 'scratch' }], persistent: [{ ...fs, name: 'data', pvcRef: { name: 'c', namespace: 'prod' } }] }]]);
    expect((await view({ volumeStats }).v.metrics()).podVolumeStats?.map((vs) => vs.map((x) => x.name))).toEqual([['scratch', 'data']]);
    expect((await view().v.metrics()).podVolumeStats).toBeUndefined();
  });
});

describe('createKubeletView: machineInfo', () => {
  it('answers run.machineInfo\'s description once there is one, null before (and when not wired)', () => {
    const machine = { numCores: 4, memoryCapacityBytes: 1 } as MachineInfo;
    const phase: { output?: MachineInfo } = {};
    const { v } = view({ machineInfo: () => phase.output });
    expect(v.machineInfo()).toBeNull();
    phase.output = machine;
    expect(v.machineInfo()).toBe(machine);
    expect(view().v.machineInfo()).toBeNull();
  });
});

describe('createKubeletView: streaming sessions', () => {
  /** The container status call, which these sessions never need. */
  const containerStatus = (): Promise<never> => Promise.reject(new Error('containerStatus is not asked for a session'));
  const sandboxes = (filters: unknown[]) => async (filter?: unknown) => {
    filters.push(filter);
    return [
      { id: 'old', created_at: '1700000000000000000' },
      { id: 'new', created_at: '1700000000000000001' },
      { id: 'older', created_at: '999999999999999999' },
    ] as never;
  };

  it('finds the pod\'s newest sandbox by its UID label', async () => {
    const filters: unknown[] = [];
    const { v } = view({ streaming: () => ({ listPodSandbox: sandboxes(filters), containerStatus }) });
    expect(await v.podSandboxId('uid-web')).toBe('new');
    expect(filters).toEqual([{ label_selector: { 'io.kubernetes.pod.uid': 'uid-web' } }]);
  });

  it('asks the runtime for each kind of session and answers its URL', async () => {
    const asked: unknown[] = [];
    const { v } = view({
      streaming: () => ({
        listPodSandbox: async () => [],
        containerStatus,
        exec: async (r) => (asked.push(r), 'http://rt/exec'),
        attach: async (r) => (asked.push(r), 'http://rt/attach'),
        portForward: async (id, ports) => (asked.push([id, ports]), 'http://rt/pf'),
      }),
    });
    expect(await v.streamingUrl({ kind: 'exec', request: { container_id: 'c', cmd: ['ls'], stdout: true } })).toBe('http://rt/exec');
    expect(await v.streamingUrl({ kind: 'attach', request: { container_id: 'c', stdout: true } })).toBe('http://rt/attach');
    expect(await v.streamingUrl({ kind: 'portForward', podSandboxId: 's', ports: [80] })).toBe('http://rt/pf');
    expect(asked).toEqual([{ container_id: 'c', cmd: ['ls'], stdout: true }, { container_id: 'c', stdout: true }, ['s', [80]]]);
  });

  it('rejects before the runtime is connected, and for a client without streaming calls', async () => {
    await expect(view().v.streamingUrl({ kind: 'portForward', podSandboxId: 's', ports: [] })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    await expect(view().v.podSandboxId('uid-web')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNAVAILABLE' });
    const bare = view({ streaming: () => ({ listPodSandbox: async () => [], containerStatus }) }).v;
    await expect(bare.streamingUrl({ kind: 'exec', request: { container_id: 'c', cmd: [] } })).rejects.toMatchObject({ code: 'KLT_ERR_CRI_UNIMPLEMENTED' });
  });
});
