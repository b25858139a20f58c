import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, sendTo, SimulatedClock, type AnyActorRef } from 'xstate';
import { createPlegActors } from '../../../src/actors/pleg/pleg-actors.js';
import { createPodWorkerActors } from '../../../src/actors/pod-worker/pod-worker-actors.js';
import { createRuntimeManager } from '../../../src/actors/runtime-manager/runtime-manager.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { FakeRuntimeHost } from '../../fakes/fake-runtime-host.js';
import type { Pod, PodStatus } from '../../../src/domain/pod/types.js';
import { plegMachine, type PlegEventsEvent } from '../../../src/machines/pleg.machine.js';
import { podWorkerMachine, type PodWorkerEvent } from '../../../src/machines/pod-worker.machine.js';
import { FakeCri } from '../../fakes/fake-cri.js';

let worker: () => AnyActorRef | undefined = () => undefined;
let pleg: () => AnyActorRef | undefined = () => undefined;

/**
 * Waits until the worker rests: idle, backing off, or gone. Bounded in real time, not in turns:
 * the runtime manager does some real file system reads.
 */
async function flush(): Promise<void> {
  const deadline = Date.now() + 5000;
  for (let i = 0; Date.now() < deadline; i++) {
    // A poll of the workers' states (see above), one turn at a time; not a fixed wait.
    await new Promise((r) => setImmediate(r));
    const ref = worker();
    const value = ref?.getSnapshot().value as unknown;
    const plegValue = pleg()?.getSnapshot().value as unknown;
    if (plegValue !== undefined && plegValue !== 'waiting') continue;
    if (i > 2 && (ref === undefined || value === 'idle' || value === 'backingOff' || (typeof value === 'object' && value !== null && 'terminating' in value && (value as { terminating: string }).terminating === 'retrying'))) return;
  }
}

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 5 },
};

let clock: SimulatedClock;
let cri: FakeCri;
let manager: RuntimeManager;
let host: FakeRuntimeHost;

beforeEach(() => {
  host = new FakeRuntimeHost();
  clock = new SimulatedClock();
  clock.set(1_800_000_000_000);
  cri = new FakeCri({ clock });
  cri.addImage('nginx:1.27');
  manager = createRuntimeManager({
    cri, clock, podLogsDir: '/var/log/pods', logger: pino({ level: 'silent' }), host,
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, hostIPs: ['192.168.1.5'] },
  });
});

/**
 * A parent running one pod worker over the real runtime manager and the in-memory CRI; with
 * `withPleg`, also the PLEG, whose events for the pod become sync requests (the syncLoop's job).
 */
function start(opts: { withPleg?: boolean; pod?: Pod } = {}) {
  const statuses: PodStatus[] = [];
  const terminated: unknown[] = [];
  const parent = createMachine({
    invoke: [
      {
        id: 'pod:uid-1', systemId: 'pod:uid-1',
        src: podWorkerMachine.provide({ actors: createPodWorkerActors(manager, clock) }),
        input: { pod: opts.pod ?? pod, hostIP: '192.168.1.5', runtimeName: 'fake' },
      },
      ...(opts.withPleg ? [{ id: 'pleg', systemId: 'pleg', src: plegMachine.provide({ actors: createPlegActors(cri, clock) }), input: {} }] : []),
    ],
    on: {
      'pod.status.updated': { actions: ({ event }) => { statuses.push((event as unknown as { status: PodStatus }).status); } },
      'pod.worker.terminated': { actions: ({ event }) => { terminated.push({ podUid: event['podUid'] }); } },
      'pleg.events': {
        guard: ({ event }) => (event as unknown as PlegEventsEvent).events.some((e) => e.podUid === 'uid-1'),
        actions: sendTo('pod:uid-1', { type: 'pod.sync.requested', reason: 'pleg' }),
      },
    },
  });
  const root = createActor(parent, { clock });
  root.start();
  worker = () => root.system.get('pod:uid-1') as AnyActorRef | undefined;
  pleg = () => root.system.get('pleg') as AnyActorRef | undefined;
  const send = (e: PodWorkerEvent) => worker()?.send(e);
  return { statuses, terminated, send };
}

describe('createPodWorkerActors', () => {
  it('runs a pod through the runtime manager and reports it Running with its containers', async () => {
    const w = start();
    await flush();
    expect(cri.sandboxes.size).toBe(1);
    const app = cri.latestContainer('app');
    expect(app?.state).toBe('CONTAINER_RUNNING');
    const status = w.statuses.at(-1);
    expect(status?.phase).toBe('Running');
    expect(status?.containerStatuses?.[0]).toMatchObject({ name: 'app', ready: true, containerID: `fake://${app?.id}` });
    expect(status?.hostIP).toBe('192.168.1.5');
  });

  it('restarts a crashing container with growing back-off (immediately, then 10 s, then 20 s, then 40 s)', async () => {
    const w = start();
    await flush();
    const t0 = clock.now();
    const crashNow = async () => {
      const latest = cri.latestContainer('app');
      if (latest) cri.exitContainer(latest.id, 1);
      // The PLEG would see ContainerDied and the syncLoop would ask for a sync.
      w.send({ type: 'pod.sync.requested', reason: 'pleg' });
      await flush();
    };
    const restarts: number[] = [];
    let count = cri.containerIdsByName('app').length;
    await crashNow();
    for (let second = 0; second <= 75 && restarts.length < 4; second++) {
      if (cri.containerIdsByName('app').length > count) {
        count = cri.containerIdsByName('app').length;
        restarts.push((clock.now() - t0) / 1000);
        await crashNow();
        continue;
      }
      clock.increment(1000);
      await flush();
    }
    expect(restarts).toEqual([0, 10, 30, 70]);
    const waiting = w.statuses.find((s) => s.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff');
    expect(waiting?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(1);
  });

  it('kills the pod with the grace period and ends with the final status', async () => {
    const w = start();
    await flush();
    w.send({ type: 'pod.kill.requested', gracePeriodSeconds: 3, reason: 'deleted' });
    await flush();
    expect(cri.calls.filter((c) => c.startsWith('stopContainer') || c.startsWith('stopPodSandbox'))).toHaveLength(2);
    expect([...cri.sandboxes.values()].every((s) => s.state === 'SANDBOX_NOTREADY')).toBe(true);
    expect(w.terminated).toEqual([{ podUid: 'uid-1' }]);
    expect(w.statuses.at(-1)?.containerStatuses?.[0]?.state?.terminated).toBeDefined();
  });
});

describe('soft admission (canRunPod): AppArmor', () => {
  const asking: Pod = { ...pod, metadata: { ...pod.metadata, annotations: { 'container.apparmor.security.beta.kubernetes.io/app': 'runtime/default' } } };

  it('keeps a pod asking for AppArmor on a host without it Pending, its container Blocked, and starts nothing, sync after sync', async () => {
    const w = start({ pod: asking });
    await flush();
    const blocked = {
      phase: 'Pending', reason: 'AppArmor', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host',
    };
    expect(w.statuses.at(-1)).toMatchObject({ ...blocked, containerStatuses: [{ name: 'app', state: { waiting: { reason: 'Blocked' } } }] });
    // The failed sync is retried after the back-off, and refused again.
    clock.increment(11_000);
    await flush();
    expect(w.statuses.at(-1)).toMatchObject(blocked);
    expect(cri.calls.filter((c) => c.startsWith('runPodSandbox') || c.startsWith('createContainer'))).toEqual([]);
  });

  it('runs it on a host with AppArmor, sending the profile in both forms', async () => {
    host.appArmor = true;
    const w = start({ pod: asking });
    await flush();
    expect(w.statuses.at(-1)?.phase).toBe('Running');
    expect(cri.containers.get(cri.latestContainer('app')!.id)?.config.linux?.security_context).toMatchObject({
      apparmor: { profile_type: 'RuntimeDefault' }, apparmor_profile: 'runtime/default',
    });
  });
});

describe('pod worker and PLEG together', () => {
  it('restarts a container that died, on the PLEG event, and reports the restart', async () => {
    const w = start({ withPleg: true });
    await flush();
    const first = cri.latestContainer('app');
    cri.exitContainer(first!.id, 1);
    clock.increment(1000);
    await flush();
    const second = cri.latestContainer('app');
    expect(second?.id).not.toBe(first?.id);
    expect(second?.state).toBe('CONTAINER_RUNNING');
    clock.increment(1000);
    await flush();
    const status = w.statuses.at(-1)?.containerStatuses?.[0];
    expect(status).toMatchObject({ restartCount: 1, containerID: `fake://${second?.id}`, lastState: { terminated: { exitCode: 1 } } });
  });

  it('restarts a container whose liveness probe failed', async () => {
    const w = start({ withPleg: true });
    await flush();
    const first = cri.latestContainer('app');
    w.send({ type: 'probe.result.changed', container: 'app', probe: 'liveness', result: 'failure' });
    await flush();
    expect(cri.containers.get(first!.id)?.state).toBe('CONTAINER_EXITED');
    clock.increment(1000);
    await flush();
    const second = cri.latestContainer('app');
    expect(second?.id).not.toBe(first?.id);
    expect(second?.state).toBe('CONTAINER_RUNNING');
  });
});
