import { describe, expect, it } from 'vitest';
import { computePodActions, type PodActions } from '../../../src/domain/runtime/compute-pod-actions.js';
import { hashContainer } from '../../../src/domain/runtime/container-hash.js';
import type { RuntimeContainerState, RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '../../../src/domain/runtime/pod-status.js';
import type { Container, Pod, RestartPolicy } from '../../../src/domain/pod/types.js';

const app: Container = { name: 'app', image: 'app:1' };
const sidecar: Container = { name: 'sidecar', image: 'side:1' };
const init1: Container = { name: 'init1', image: 'init:1' };
const init2: Container = { name: 'init2', image: 'init:2' };

function pod(restartPolicy: RestartPolicy, opts: { init?: boolean; deleting?: boolean; hostNetwork?: boolean; containers?: Container[] } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'uid', ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      restartPolicy,
      containers: opts.containers ?? [app, sidecar],
      ...(opts.init ? { initContainers: [init1, init2] } : {}),
      ...(opts.hostNetwork ? { hostNetwork: true } : {}),
    },
  };
}

let seq = 1000;
function sandbox(ready: boolean, attempt = 0, ips = ['10.0.0.2']): RuntimeSandboxStatus {
  return { id: `sb-${attempt}`, attempt, ready, createdAt: String(seq++), ips, hasNetworkStatus: true };
}

function ctr(spec: Container, state: RuntimeContainerState, exitCode = 0, extra: Partial<RuntimeContainerStatus> = {}): RuntimeContainerStatus {
  return {
    id: `${spec.name}-${seq++}`, name: spec.name, state, createdAt: String(seq), startedAt: '0', finishedAt: '0', exitCode, reason: '', message: '',
    image: spec.image, imageRef: 'sha256:x', hash: hashContainer(spec), restartCount: 0, sandboxId: 'sb-0', ...extra,
  };
}

function status(sandboxes: RuntimeSandboxStatus[], containers: RuntimeContainerStatus[]): RuntimePodStatus {
  return { uid: 'uid', name: 'p', namespace: 'ns', ips: sandboxes[0]?.ready ? sandboxes[0].ips : [], sandboxes, containers };
}

/** The interesting part of a plan, for compact tables. */
function summary(a: PodActions) {
  return {
    killPod: a.killPod,
    createSandbox: a.createSandbox,
    attempt: a.attempt,
    init: a.nextInitContainerToStart ?? null,
    start: a.containersToStart,
    kill: a.containersToKill.map((k) => `${k.name}:${k.reason}`),
  };
}

const ready = sandbox(true);

describe('computePodActions: the sandbox', () => {
  it.each<[string, Pod, RuntimePodStatus, ReturnType<typeof summary>]>([
    ['a new pod creates a sandbox (attempt 0) and starts every container', pod('Always'), status([], []),
      { killPod: true, createSandbox: true, attempt: 0, init: null, start: ['app', 'sidecar'], kill: [] }],
    ['a new pod with init containers starts only the first init container', pod('Always', { init: true }), status([], []),
      { killPod: true, createSandbox: true, attempt: 0, init: 'init1', start: [], kill: [] }],
    ['a dead sandbox is replaced with attempt + 1', pod('Always'), status([sandbox(false, 2)], [ctr(app, 'exited', 1), ctr(sidecar, 'exited', 1)]),
      { killPod: true, createSandbox: true, attempt: 3, init: null, start: ['app', 'sidecar'], kill: [] }],
    ['two ready sandboxes are reconciled into a new one', pod('Always'), status([sandbox(true, 1), sandbox(true, 0)], []),
      { killPod: true, createSandbox: true, attempt: 2, init: null, start: ['app', 'sidecar'], kill: [] }],
    ['a ready sandbox without an IP is replaced', pod('Always'), status([sandbox(true, 0, [])], []),
      { killPod: true, createSandbox: true, attempt: 1, init: null, start: ['app', 'sidecar'], kill: [] }],
    ['OnFailure does not restart containers that succeeded in the old sandbox', pod('OnFailure'), status([sandbox(false, 0)], [ctr(app, 'exited', 0), ctr(sidecar, 'exited', 2)]),
      { killPod: true, createSandbox: true, attempt: 1, init: null, start: ['sidecar'], kill: [] }],
    ['OnFailure with every container succeeded only kills the pod', pod('OnFailure'), status([sandbox(false, 0)], [ctr(app, 'exited', 0), ctr(sidecar, 'exited', 0)]),
      { killPod: true, createSandbox: false, attempt: 1, init: null, start: [], kill: [] }],
    ['Never with containers that already ran only kills the pod', pod('Never'), status([sandbox(false, 0)], [ctr(app, 'exited', 1)]),
      { killPod: true, createSandbox: false, attempt: 1, init: null, start: [], kill: [] }],
    ['Never retries a sandbox whose containers never got created', pod('Never'), status([sandbox(false, 0)], []),
      { killPod: true, createSandbox: true, attempt: 1, init: null, start: ['app', 'sidecar'], kill: [] }],
  ])('%s', (_, p, s, expected) => {
    expect(summary(computePodActions(p, s))).toEqual(expected);
  });

  it('keeps a host-network sandbox that has no IP of its own', () => {
    const a = computePodActions(pod('Always', { hostNetwork: true }), status([sandbox(true, 0, [])], [ctr(app, 'running'), ctr(sidecar, 'running')]));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, attempt: 0, init: null, start: [], kill: [] });
    expect(a.sandboxId).toBe('sb-0');
  });
});

describe('computePodActions: init containers', () => {
  it.each<[string, RestartPolicy, RuntimeContainerStatus[], ReturnType<typeof summary>]>([
    ['the first runs while it is running: nothing else starts', 'Always', [ctr(init1, 'running')],
      { killPod: false, createSandbox: false, attempt: 0, init: null, start: [], kill: [] }],
    ['the second starts once the first completed', 'Always', [ctr(init1, 'exited', 0)],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init2', start: [], kill: [] }],
    ['regular containers start once the last completed', 'Always', [ctr(init2, 'exited', 0), ctr(init1, 'exited', 0)],
      { killPod: false, createSandbox: false, attempt: 0, init: null, start: ['app', 'sidecar'], kill: [] }],
    ['a failed one is retried under Always', 'Always', [ctr(init1, 'exited', 1)],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init1', start: [], kill: [] }],
    ['a failed one is retried under OnFailure', 'OnFailure', [ctr(init2, 'exited', 3), ctr(init1, 'exited', 0)],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init2', start: [], kill: [] }],
    ['a failed one fails the pod under Never', 'Never', [ctr(init1, 'exited', 1)],
      { killPod: true, createSandbox: false, attempt: 0, init: null, start: [], kill: [] }],
    ['an OOM-killed one counts as failed even with exit code 0', 'Never', [ctr(init1, 'exited', 0, { reason: 'OOMKilled' })],
      { killPod: true, createSandbox: false, attempt: 0, init: null, start: [], kill: [] }],
    ['one in unknown state is killed before it is retried', 'Always', [ctr(init1, 'unknown')],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init1', start: [], kill: ['init1:Unknown'] }],
    ['one left created is started again (classic path)', 'Always', [ctr(init2, 'created'), ctr(init1, 'exited', 0)],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init2', start: [], kill: [] }],
    ['none has run yet: the first starts', 'Always', [],
      { killPod: false, createSandbox: false, attempt: 0, init: 'init1', start: [], kill: [] }],
    ['a running regular container means initialization is done, even if init containers are gone', 'Always', [ctr(app, 'running')],
      { killPod: false, createSandbox: false, attempt: 0, init: null, start: ['sidecar'], kill: [] }],
  ])('%s', (_, policy, containers, expected) => {
    expect(summary(computePodActions(pod(policy, { init: true }), status([ready], containers)))).toEqual(expected);
  });

  it('names the init container by index too', () => {
    const a = computePodActions(pod('Always', { init: true }), status([ready], [ctr(init1, 'exited', 0)]));
    expect(a.initContainersToStart).toEqual([1]);
  });
});

describe('computePodActions: regular containers', () => {
  it.each<[string, RestartPolicy, number, boolean]>([
    ['Always restarts after success', 'Always', 0, true],
    ['Always restarts after failure', 'Always', 1, true],
    ['OnFailure restarts after failure', 'OnFailure', 137, true],
    ['OnFailure leaves a success alone', 'OnFailure', 0, false],
    ['Never leaves a failure alone', 'Never', 1, false],
    ['Never leaves a success alone', 'Never', 0, false],
  ])('%s (exit %i)', (_, policy, exitCode, restarted) => {
    const a = computePodActions(pod(policy), status([ready], [ctr(app, 'exited', exitCode), ctr(sidecar, 'running')]));
    expect(a.containersToStart).toEqual(restarted ? ['app'] : []);
    expect(a.killPod).toBe(false);
  });

  it.each<[RuntimeContainerState, string[]]>([
    ['created', []],
    ['unknown', ['app:Unknown']],
  ])('always restarts a container left %s, killing an unknown one first', (state, kill) => {
    const a = computePodActions(pod('Never'), status([ready], [ctr(app, state), ctr(sidecar, 'running')]));
    expect(a.containersToStart).toEqual(['app']);
    expect(a.containersToKill.map((k) => `${k.name}:${k.reason}`)).toEqual(kill);
  });

  it('starts a container that never ran', () => {
    expect(computePodActions(pod('Never'), status([ready], [ctr(sidecar, 'running')])).containersToStart).toEqual(['app']);
  });

  it('does not restart anything of a pod being deleted', () => {
    const a = computePodActions(pod('Always', { deleting: true }), status([ready], [ctr(app, 'exited', 1), ctr(sidecar, 'running')]));
    expect(a.containersToStart).toEqual([]);
  });

  it('looks at the newest instance of a container only', () => {
    const newest = ctr(app, 'running');
    const a = computePodActions(pod('Always'), status([ready], [newest, ctr(app, 'exited', 1), ctr(sidecar, 'running')]));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, attempt: 0, init: null, start: [], kill: [] });
  });

  it('kills and restarts only the container whose spec hash changed, whatever the policy', () => {
    const changed = { ...app, image: 'app:2' };
    const running = ctr(app, 'running');
    const a = computePodActions(pod('Never', { containers: [changed, sidecar] }), status([ready], [running, ctr(sidecar, 'running')]));
    expect(a.containersToStart).toEqual(['app']);
    expect(a.containersToKill).toEqual([{ id: running.id, name: 'app', reason: 'SpecChanged', message: 'Container app definition changed, will be restarted' }]);
    expect(a.killPod).toBe(false);
  });

  it.each<[RestartPolicy, string[]]>([
    ['Always', ['sidecar']],
    ['OnFailure', ['sidecar']],
    ['Never', []],
  ])('kills a container that failed liveness and restarts it unless %s says no', (policy, started) => {
    const a = computePodActions(pod(policy), status([ready], [ctr(app, 'running'), ctr(sidecar, 'running')]), { livenessFailed: ['sidecar'] });
    expect(a.containersToKill.map((k) => `${k.name}:${k.reason}`)).toEqual(['sidecar:LivenessProbe']);
    expect(a.containersToStart).toEqual(started);
    expect(a.killPod).toBe(false);
  });

  it('kills a container that failed its startup probe', () => {
    const a = computePodActions(pod('Always'), status([ready], [ctr(app, 'running'), ctr(sidecar, 'running')]), { startupFailed: ['app'] });
    expect(a.containersToKill.map((k) => `${k.name}:${k.reason}`)).toEqual(['app:StartupProbe']);
    expect(a.containersToStart).toEqual(['app']);
  });

  it('kills the pod when nothing runs and nothing is to start', () => {
    const a = computePodActions(pod('Never'), status([ready], [ctr(app, 'exited', 0), ctr(sidecar, 'exited', 1)]));
    expect(summary(a)).toEqual({ killPod: true, createSandbox: false, attempt: 0, init: null, start: [], kill: [] });
  });

  it('kills the pod when its only container fails liveness under Never', () => {
    const a = computePodActions(pod('Never', { containers: [app] }), status([ready], [ctr(app, 'running')]), { livenessFailed: ['app'] });
    expect(a.killPod).toBe(true);
  });

  it('does nothing when every container runs as specified', () => {
    const a = computePodActions(pod('Always'), status([ready], [ctr(app, 'running'), ctr(sidecar, 'running')]));
    expect(summary(a)).toEqual({ killPod: false, createSandbox: false, attempt: 0, init: null, start: [], kill: [] });
  });
});

describe('computePodActions: sidecars (restartable init containers)', () => {
  const proxy: Container = { name: 'proxy', image: 'proxy:1', restartPolicy: 'Always' };
  const proxyWithStartup: Container = { ...proxy, startupProbe: { exec: { command: ['true'] } } };
  const migrate: Container = { name: 'migrate', image: 'migrate:1' };

  function sidecarPod(restartPolicy: RestartPolicy, sidecar: Container = proxy): Pod {
    return { metadata: { name: 'p', namespace: 'ns', uid: 'uid' }, spec: { restartPolicy, initContainers: [sidecar, migrate], containers: [app] } };
  }

  function plan(p: Pod, containers: RuntimeContainerStatus[], probes = {}) {
    const a = computePodActions(p, status([ready], containers), probes);
    return { killPod: a.killPod, initToStart: a.initContainersToStart, start: a.containersToStart, kill: a.containersToKill.map((k) => `${k.name}:${k.reason}`) };
  }

  it.each<[string, Pod, RuntimeContainerStatus[], object, ReturnType<typeof plan>]>([
    ['nothing ran: the sidecar starts first', sidecarPod('Always'), [], {},
      { killPod: false, initToStart: [0], start: [], kill: [] }],
    ['a running sidecar lets the next init container start', sidecarPod('Always'), [ctr(proxy, 'running')], {},
      { killPod: false, initToStart: [1], start: [], kill: [] }],
    ['a sidecar with a startup probe holds the next one back until it has started', sidecarPod('Always', proxyWithStartup), [ctr(proxyWithStartup, 'running')], {},
      { killPod: false, initToStart: [], start: [], kill: [] }],
    ['…and lets it go once the startup probe succeeded', sidecarPod('Always', proxyWithStartup), [ctr(proxyWithStartup, 'running')], { startupSucceeded: ['proxy'] },
      { killPod: false, initToStart: [1], start: [], kill: [] }],
    ['a sidecar that failed its startup probe is restarted', sidecarPod('Always', proxyWithStartup), [ctr(proxyWithStartup, 'running')], { startupFailed: ['proxy'] },
      { killPod: false, initToStart: [0], start: [], kill: ['proxy:StartupProbe'] }],
    ['after the last init container the regular containers start, the sidecar keeps running', sidecarPod('Always'), [ctr(migrate, 'exited', 0), ctr(proxy, 'running')], {},
      { killPod: false, initToStart: [], start: ['app'], kill: [] }],
    ['an exited sidecar is restarted even under Never', sidecarPod('Never'), [ctr(app, 'running'), ctr(migrate, 'exited', 0), ctr(proxy, 'exited', 1)], {},
      { killPod: false, initToStart: [0], start: [], kill: [] }],
    ['a sidecar removed from the runtime after initialization is started again', sidecarPod('Always'), [ctr(app, 'running')], {},
      { killPod: false, initToStart: [0], start: [], kill: [] }],
    ['a sidecar without a liveness probe of its own is not killed for one', sidecarPod('Always'), [ctr(app, 'running'), ctr(proxy, 'running')], { livenessFailed: ['proxy'] },
      { killPod: false, initToStart: [], start: [], kill: [] }],
    ['a sidecar whose spec changed is killed and restarted', { ...sidecarPod('Always'), spec: { ...sidecarPod('Always').spec, initContainers: [{ ...proxy, image: 'proxy:2' }, migrate] } }, [ctr(app, 'running'), ctr(proxy, 'running')], {},
      { killPod: false, initToStart: [0], start: [], kill: ['proxy:SpecChanged'] }],
    ['a failed ordinary init container after a sidecar fails the pod under Never', sidecarPod('Never'), [ctr(migrate, 'exited', 1), ctr(proxy, 'running')], {},
      { killPod: true, initToStart: [], start: [], kill: [] }],
    ['a sidecar does not keep a finished pod alive', sidecarPod('Never'), [ctr(app, 'exited', 0), ctr(migrate, 'exited', 0), ctr(proxy, 'running')], {},
      { killPod: true, initToStart: [], start: [], kill: [] }],
  ])('%s', (_, p, containers, probes, expected) => {
    expect(plan(p, containers, probes)).toEqual(expected);
  });

  it('restarts a sidecar with a liveness probe that failed it', () => {
    const checked: Container = { ...proxy, livenessProbe: { exec: { command: ['true'] } } };
    const p: Pod = { ...sidecarPod('Always'), spec: { ...sidecarPod('Always').spec, initContainers: [checked, migrate] } };
    expect(plan(p, [ctr(app, 'running'), ctr(checked, 'running')], { livenessFailed: ['proxy'] })).toEqual(
      { killPod: false, initToStart: [0], start: [], kill: ['proxy:LivenessProbe'] });
  });

  it('restarts an ordinary init container left in the created state', () => {
    expect(plan(sidecarPod('Always'), [ctr(migrate, 'created'), ctr(proxy, 'running')]).initToStart).toEqual([1]);
  });
});

describe('computePodActions: container restart rules', () => {
  const restartOn42: Container = { name: 'app', image: 'app:1', restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] };
  const alwaysApp: Container = { name: 'app', image: 'app:1', restartPolicy: 'Always' };
  const neverApp: Container = { name: 'app', image: 'app:1', restartPolicy: 'Never' };
  const onFailureApp: Container = { name: 'app', image: 'app:1', restartPolicy: 'OnFailure' };

  function plan(p: Pod, containers: RuntimeContainerStatus[], probes = {}, sandboxes = [ready]) {
    const a = computePodActions(p, status(sandboxes, containers), probes);
    return { killPod: a.killPod, createSandbox: a.createSandbox, initToStart: a.initContainersToStart, start: a.containersToStart, kill: a.containersToKill.map((k) => `${k.name}:${k.reason}`) };
  }

  it.each<[string, Pod, RuntimeContainerStatus[], { killPod: boolean; start: string[] }]>([
    ['a matching rule restarts an exited container in a Never pod', pod('Never', { containers: [restartOn42] }), [ctr(restartOn42, 'exited', 42)], { killPod: false, start: ['app'] }],
    ['a rule that does not match leaves it exited: the pod is killed', pod('Never', { containers: [restartOn42] }), [ctr(restartOn42, 'exited', 1)], { killPod: true, start: [] }],
    ['the container\'s Always restarts it in a Never pod', pod('Never', { containers: [alwaysApp] }), [ctr(alwaysApp, 'exited', 0)], { killPod: false, start: ['app'] }],
    ['the container\'s Never keeps it down in an Always pod', pod('Always', { containers: [neverApp] }), [ctr(neverApp, 'exited', 1)], { killPod: true, start: [] }],
    ['the container\'s OnFailure restarts a failure in a Never pod', pod('Never', { containers: [onFailureApp] }), [ctr(onFailureApp, 'exited', 2)], { killPod: false, start: ['app'] }],
    ['no container policy: the pod\'s Always', pod('Always', { containers: [app] }), [ctr(app, 'exited', 0)], { killPod: false, start: ['app'] }],
  ])('%s', (_, p, containers, expected) => {
    expect(plan(p, containers)).toMatchObject(expected);
  });

  it('a liveness failure restarts by the container\'s own policy, not the pod\'s', () => {
    expect(plan(pod('Never', { containers: [alwaysApp] }), [ctr(alwaysApp, 'running')], { livenessFailed: ['app'] }))
      .toMatchObject({ start: ['app'], kill: ['app:LivenessProbe'] });
    expect(plan(pod('Always', { containers: [neverApp, sidecar] }), [ctr(neverApp, 'running'), ctr(sidecar, 'running')], { livenessFailed: ['app'] }))
      .toMatchObject({ start: [], kill: ['app:LivenessProbe'] });
  });

  it('after a new sandbox, a container whose own policy is OnFailure and that succeeded is not started again', () => {
    const p = pod('Always', { containers: [onFailureApp, sidecar] });
    expect(plan(p, [ctr(onFailureApp, 'exited', 0), ctr(sidecar, 'exited', 0)], {}, [sandbox(false, 1)])).toMatchObject({ createSandbox: true, start: ['sidecar'] });
  });

  describe('init containers', () => {
    const retried: Container = { name: 'init1', image: 'init:1', restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'NotIn', values: [0] } }] };
    const neverInit: Container = { name: 'init1', image: 'init:1', restartPolicy: 'Never' };
    const proxy: Container = { name: 'proxy', image: 'proxy:1', restartPolicy: 'Always' };
    const withInits = (policy: RestartPolicy, inits: Container[]): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'uid' }, spec: { restartPolicy: policy, initContainers: inits, containers: [app] } });

    it.each<[string, Pod, RuntimeContainerStatus[], { killPod: boolean; initToStart: number[] }]>([
      ['a failed init container retried by its rule in a Never pod', withInits('Never', [retried]), [ctr(retried, 'exited', 3)], { killPod: false, initToStart: [0] }],
      ['…and by its rule on the sidecar path', withInits('Never', [proxy, retried]), [ctr(proxy, 'running'), ctr(retried, 'exited', 3)], { killPod: false, initToStart: [1] }],
      ['a failed init container whose own Never says no kills an Always pod', withInits('Always', [neverInit]), [ctr(neverInit, 'exited', 3)], { killPod: true, initToStart: [] }],
      ['…on the sidecar path too', withInits('Always', [proxy, neverInit]), [ctr(proxy, 'running'), ctr(neverInit, 'exited', 3)], { killPod: true, initToStart: [] }],
      ['an init container in an unknown state follows its own policy only', withInits('Always', [proxy, retried]), [ctr(proxy, 'running'), ctr(retried, 'unknown')], { killPod: true, initToStart: [] }],
      ['a failed init container with no policy of its own follows the pod\'s OnFailure', withInits('OnFailure', [init1]), [ctr(init1, 'exited', 3)], { killPod: false, initToStart: [0] }],
    ])('%s', (_, p, containers, expected) => {
      expect(plan(p, containers)).toMatchObject(expected);
    });
  });
});
