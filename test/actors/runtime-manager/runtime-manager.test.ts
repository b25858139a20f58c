import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeManager, type RuntimeManagerOptions } from '../../../src/actors/runtime-manager/runtime-manager.js';
import type { RuntimeManager, SyncPodResult } from '../../../src/ports/runtime-manager.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import { runtimeOnlyPod } from '../../../src/domain/pod/orphans.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Clock } from '../../../src/ports/clock.js';
import { FakeCri } from '../../fakes/fake-cri.js';
import { FakeRuntimeHost } from '../../fakes/fake-runtime-host.js';

/** A clock that only moves when the test says so. */
class SimulatedClock implements Clock {
  private ms = 1_000_000;
  now(): number { return this.ms; }
  advance(ms: number): void { this.ms += ms; }
  setTimeout(): unknown { throw new Error('not used'); }
  clearTimeout(): void {}
}

const init: Container = { name: 'init', image: 'busybox:1.36', command: ['true'] };
const app: Container = { name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] };
const sidecar: Container = { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', 'infinity'] };

function makePod(overrides: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' },
    spec: { containers: [app, sidecar], initContainers: [init], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...overrides },
  };
}

/** The lifecycle calls (the ones that change something), in order. */
function lifecycle(cri: FakeCri): string[] {
  return cri.calls.filter((c) => /^(runPodSandbox|stopPodSandbox|removePodSandbox|createContainer|startContainer|stopContainer|removeContainer|pullImage)/.test(c));
}

function failedSteps(result: SyncPodResult) {
  return result.steps.filter((s) => !s.ok).map((s) => ({ step: s.step, target: s.target, reason: s.reason, code: s.error?.code }));
}

let logsDir: string;
let clock: SimulatedClock;
let cri: FakeCri;
let manager: RuntimeManager;

function build(extra: Partial<RuntimeManagerOptions> = {}): RuntimeManager {
  return createRuntimeManager({
    cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(),
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, hostIPs: ['192.168.1.5'] },
    ...extra,
  });
}

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-runtime-manager-'));
  clock = new SimulatedClock();
  cri = new FakeCri({ clock });
  cri.addImage('busybox:1.36');
  cri.addImage('nginx:1.27');
  manager = build();
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

describe('runtimeManager.syncPod', () => {
  it('starts a pod with an init container in order: sandbox, init to completion, then both containers', async () => {
    const pod = makePod();
    const first = await manager.syncPod(pod);
    expect(first.ok).toBe(true);
    expect(lifecycle(cri)).toEqual(['runPodSandbox web', 'createContainer init', 'startContainer init']);
    // A new pod is "killed" first (nothing runs yet), as Go's SyncPod does for a changed sandbox.
    expect(first.steps.map((s) => s.step)).toEqual(['computePodActions', 'killPodSandbox', 'createPodSandbox', 'startInitContainer']);

    // While init runs nothing else happens.
    cri.calls.length = 0;
    await manager.syncPod(pod);
    expect(lifecycle(cri)).toEqual([]);

    cri.exitContainer(cri.latestContainer('init')?.id ?? '', 0);
    cri.calls.length = 0;
    const third = await manager.syncPod(pod);
    expect(third.ok).toBe(true);
    expect(lifecycle(cri)).toEqual(['createContainer app', 'startContainer app', 'createContainer sidecar', 'startContainer sidecar']);
    expect(third.sandboxId).toBe(first.sandboxId);
    expect(cri.latestContainer('app')?.state).toBe('CONTAINER_RUNNING');

    // A sync that started something hands back the pod's status as it left it, read at its end.
    expect(first.podStatus?.runtimeStatus.containers.map((c) => [c.name, c.state])).toEqual([['init', 'running']]);
    expect(third.podStatus?.runtimeStatus).toEqual(await manager.getPodStatus(pod.metadata.uid));
    expect(third.podStatus?.runtimeStatus.containers.filter((c) => c.state === 'running').map((c) => c.name).sort()).toEqual(['app', 'sidecar']);

    // Steady state: nothing to do, and the status the plan was made from comes back with the
    // time of the read, so the worker need not read it again.
    cri.calls.length = 0;
    clock.advance(1234);
    const readAt = clock.now();
    const fourth = await manager.syncPod(pod);
    expect(lifecycle(cri)).toEqual([]);
    expect(fourth.steps.map((s) => s.step)).toEqual(['computePodActions']);
    expect(fourth.podStatus?.observedAtMs).toBe(readAt);
    expect(fourth.podStatus?.runtimeStatus).toEqual(await manager.getPodStatus(pod.metadata.uid));

    // Given a view (the periodic resync), the plan reads nothing and hands that view back.
    cri.calls.length = 0;
    const fifth = await manager.syncPod(pod, { podStatus: fourth.podStatus!.runtimeStatus });
    expect(cri.calls).toEqual([]);
    expect(fifth.podStatus?.runtimeStatus).toBe(fourth.podStatus!.runtimeStatus);
  });

  it('starts a sidecar, then the init container, then the app, keeping the sidecar running', async () => {
    const proxy: Container = { name: 'proxy', image: 'busybox:1.36', restartPolicy: 'Always' };
    const pod = makePod({ initContainers: [proxy, init], containers: [app] });
    await manager.syncPod(pod);
    expect(lifecycle(cri)).toEqual(['runPodSandbox web', 'createContainer proxy', 'startContainer proxy']);
    cri.calls.length = 0;
    await manager.syncPod(pod);
    expect(lifecycle(cri)).toEqual(['createContainer init', 'startContainer init']);
    cri.exitContainer(cri.latestContainer('init')?.id ?? '', 0);
    cri.calls.length = 0;
    await manager.syncPod(pod);
    expect(lifecycle(cri)).toEqual(['createContainer app', 'startContainer app']);
    expect(cri.latestContainer('proxy')?.state).toBe('CONTAINER_RUNNING');
  });

  it('goes on past a sidecar that fails to start', async () => {
    const proxy: Container = { name: 'proxy', image: 'busybox:1.36', restartPolicy: 'Always' };
    const logger: Container = { name: 'logger', image: 'busybox:1.36', restartPolicy: 'Always' };
    const pod = makePod({ initContainers: [proxy, logger], containers: [app] });
    for (let i = 0; i < 3; i++) await manager.syncPod(pod); // proxy, then logger, then app
    expect(cri.latestContainer('app')?.state).toBe('CONTAINER_RUNNING');
    cri.exitContainer(cri.latestContainer('proxy')?.id ?? '', 1);
    cri.exitContainer(cri.latestContainer('logger')?.id ?? '', 1);
    cri.failNext('createContainer', new KubeletError('KLT_ERR_CRI_FAILED', 'boom'));
    cri.calls.length = 0;
    const result = await manager.syncPod(pod);
    expect(result.actions.initContainersToStart).toEqual([0, 1]);
    expect(failedSteps(result)).toEqual([{ step: 'startInitContainer', target: 'proxy', reason: 'CreateContainerError', code: 'KLT_ERR_CRI_FAILED' }]);
    expect(lifecycle(cri)).toEqual(['createContainer proxy', 'createContainer logger', 'startContainer logger']);
  });

  it('keeps only the newest exited instance of a retried init container', async () => {
    const pod = makePod();
    await manager.syncPod(pod);
    cri.exitContainer(cri.latestContainer('init')?.id ?? '', 1);
    clock.advance(60_000);
    await manager.syncPod(pod); // retry 1
    const first = cri.containerIdsByName('init')[0];
    cri.exitContainer(cri.latestContainer('init')?.id ?? '', 1);
    clock.advance(60_000);
    cri.calls.length = 0;
    await manager.syncPod(pod); // retry 2: the oldest failed instance goes
    expect(lifecycle(cri)).toEqual(['removeContainer init', 'createContainer init', 'startContainer init']);
    expect(cri.containerIdsByName('init')).toHaveLength(2);
    expect(cri.containerIdsByName('init')).not.toContain(first);
  });

  it('creates the pod log directory before the sandbox and configures the sandbox as generated', async () => {
    await manager.syncPod(makePod({ initContainers: [] }));
    const sandbox = [...cri.sandboxes.values()][0];
    expect(sandbox?.config.log_directory).toBe(join(logsDir, 'shop_web_uid-1'));
    expect((await stat(join(logsDir, 'shop_web_uid-1'))).isDirectory()).toBe(true);
    expect(sandbox?.config.labels?.['io.kubernetes.pod.uid']).toBe('uid-1');
    const appConfig = cri.latestContainer('app')?.config;
    expect(appConfig?.log_path).toBe('app/0.log');
    expect(appConfig?.image.user_specified_image).toBe('nginx:1.27');
  });

  it('reaches the node only through its host: the log directory, --resolv-conf and the memory fallback', async () => {
    const host = new FakeRuntimeHost(4 * 1024 ** 3);
    host.files.set('/etc/resolv.conf', 'nameserver 10.0.0.10\nsearch corp.example\n');
    host.files.set('/pods/shop_web_uid-1/app/2.log', '');
    const onHost = createRuntimeManager({ cri, clock, podLogsDir: '/pods', logger: pino({ level: 'silent' }), host, node: { resolvConf: '/etc/resolv.conf' } });
    const burstable: Container = { ...app, resources: { requests: { memory: '1Gi' } } };
    await onHost.syncPod(makePod({ initContainers: [], containers: [burstable] }));
    expect([...host.directories]).toEqual(['/pods/shop_web_uid-1']);
    const sandbox = [...cri.sandboxes.values()][0];
    expect(sandbox?.config.dns_config).toMatchObject({ servers: ['10.0.0.10'], searches: ['corp.example'] });
    expect(cri.latestContainer('app')?.config.log_path).toBe('app/3.log');
    // Burstable: 1000 - 1000 * request / capacity, the capacity being the host's 4 GiB.
    expect(Number(cri.latestContainer('app')?.config.linux?.resources?.oom_score_adj)).toBe(750);
  });

  it('resumes the restart count from the log directory when the runtime forgot the container', async () => {
    await mkdir(join(logsDir, 'shop_web_uid-1', 'app'), { recursive: true });
    await writeFile(join(logsDir, 'shop_web_uid-1', 'app', '4.log'), '');
    await manager.syncPod(makePod({ initContainers: [] }));
    expect(cri.latestContainer('app')?.config.log_path).toBe('app/5.log');
    expect(cri.latestContainer('sidecar')?.config.log_path).toBe('sidecar/0.log');
  });

  it('restarts only the container whose spec changed, with the next restart count', async () => {
    const pod = makePod({ initContainers: [] });
    await manager.syncPod(pod);
    const oldApp = cri.latestContainer('app');
    const sidecarId = cri.latestContainer('sidecar')?.id;
    cri.calls.length = 0;

    const changed = makePod({ initContainers: [], containers: [{ ...app, args: ['-g', 'daemon off;'] }, sidecar] });
    const result = await manager.syncPod(changed);
    expect(result.ok).toBe(true);
    expect(lifecycle(cri)).toEqual(['stopContainer app', 'createContainer app', 'startContainer app']);
    expect(result.actions.containersToKill).toEqual([expect.objectContaining({ name: 'app', reason: 'SpecChanged', id: oldApp?.id })]);
    expect(oldApp?.state).toBe('CONTAINER_EXITED');
    expect(oldApp?.stopTimeoutSeconds).toBe(30);
    expect(cri.latestContainer('app')?.config.annotations?.['io.kubernetes.container.restartCount']).toBe('1');
    expect(cri.latestContainer('app')?.config.log_path).toBe('app/1.log');
    expect(cri.latestContainer('sidecar')?.id).toBe(sidecarId);
  });

  it('kills and restarts a container whose liveness probe failed', async () => {
    const pod = makePod({ initContainers: [] });
    await manager.syncPod(pod);
    cri.calls.length = 0;
    const result = await manager.syncPod(pod, { probes: { livenessFailed: ['sidecar'] } });
    expect(lifecycle(cri)).toEqual(['stopContainer sidecar', 'createContainer sidecar', 'startContainer sidecar']);
    expect(result.steps.find((s) => s.step === 'killContainer')).toMatchObject({ target: 'sidecar', ok: true });
  });

  it('replaces a dead sandbox with attempt 1, stopping the old one and purging init containers', async () => {
    const pod = makePod();
    const first = await manager.syncPod(pod);
    cri.exitContainer(cri.latestContainer('init')?.id ?? '', 0);
    await manager.syncPod(pod);
    cri.failSandbox(first.sandboxId ?? '');
    cri.calls.length = 0;

    const result = await manager.syncPod(pod);
    expect(result.ok).toBe(true);
    expect(result.actions).toMatchObject({ killPod: true, createSandbox: true, attempt: 1, nextInitContainerToStart: 'init' });
    const calls = lifecycle(cri);
    // Containers are stopped in parallel: their order is free, but both come before the sandbox.
    expect(calls.slice(0, 2).sort()).toEqual(['stopContainer app', 'stopContainer sidecar']);
    expect(calls.slice(2)).toEqual([
      'stopPodSandbox web',
      'removeContainer init',
      'runPodSandbox web', 'createContainer init', 'startContainer init',
    ]);
    expect(result.sandboxId).not.toBe(first.sandboxId);
    expect(cri.sandboxes.get(result.sandboxId ?? '')?.config.metadata.attempt).toBe(1);
  });

  it('stops at a failed sandbox creation and reports it', async () => {
    cri.failNext('runPodSandbox', new KubeletError('KLT_ERR_CRI_FAILED', 'failed to setup network for sandbox'));
    const result = await manager.syncPod(makePod({ initContainers: [] }));
    expect(result.ok).toBe(false);
    expect(failedSteps(result)).toEqual([{ step: 'createPodSandbox', target: 'shop/web', reason: 'CreatePodSandboxError', code: 'KLT_ERR_CRI_FAILED' }]);
    expect(lifecycle(cri)).toEqual(['runPodSandbox web']);
    expect(result.steps.at(-1)?.step).toBe('createPodSandbox');
  });

  it('goes on to the next container after one fails to start, and stops after a failed init container', async () => {
    cri.failNext('createContainer', new KubeletError('KLT_ERR_CRI_FAILED', 'no space left on device'));
    const result = await manager.syncPod(makePod({ initContainers: [] }));
    expect(failedSteps(result)).toEqual([{ step: 'startContainer', target: 'app', reason: 'CreateContainerError', code: 'KLT_ERR_CRI_FAILED' }]);
    expect(lifecycle(cri)).toEqual(['runPodSandbox web', 'createContainer app', 'createContainer sidecar', 'startContainer sidecar']);

    const other = new FakeCri({ clock });
    other.addImage('busybox:1.36');
    other.addImage('nginx:1.27');
    cri = other;
    manager = build();
    cri.failNext('startContainer', new KubeletError('KLT_ERR_CRI_FAILED', 'exec format error'));
    const withInit = await manager.syncPod(makePod());
    expect(failedSteps(withInit)).toEqual([{ step: 'startInitContainer', target: 'init', reason: 'RunContainerError', code: 'KLT_ERR_CRI_FAILED' }]);
    expect(withInit.steps.at(-1)?.step).toBe('startInitContainer');
  });

  it('stops the sync when an unwanted container cannot be killed', async () => {
    const pod = makePod({ initContainers: [] });
    await manager.syncPod(pod);
    cri.exitContainer(cri.latestContainer('sidecar')?.id ?? '', 1);
    cri.failNext('stopContainer', new KubeletError('KLT_ERR_CRI_DEADLINE', 'context deadline exceeded'));
    cri.calls.length = 0;
    const changed = makePod({ initContainers: [], containers: [{ ...app, image: 'nginx:1.27', workingDir: '/srv' }, sidecar] });
    const result = await manager.syncPod(changed);
    expect(failedSteps(result)).toEqual([{ step: 'killContainer', target: 'app', reason: 'KillContainerError', code: 'KLT_ERR_CRI_DEADLINE' }]);
    // Go returns at a failed kill: the exited sidecar is not restarted in this sync.
    expect(lifecycle(cri)).toEqual(['stopContainer app']);
  });

  it('reports a container whose config cannot be built and still starts the others', async () => {
    const needsSecret: Container = { name: 'app', image: 'nginx:1.27', env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } }] };
    const result = await manager.syncPod(makePod({ initContainers: [], containers: [needsSecret, sidecar] }));
    expect(failedSteps(result)).toEqual([{ step: 'startContainer', target: 'app', reason: 'CreateContainerConfigError', code: 'KLT_ERR_CONTAINER_CONFIG' }]);
    expect(lifecycle(cri)).toEqual(['runPodSandbox web', 'createContainer sidecar', 'startContainer sidecar']);
  });

  it('gives each started container the pod\'s Service variables, under its own env; a failed read is that container\'s CreateContainerConfigError', async () => {
    let synced = false;
    const asked: string[] = [];
    const withServices = build({
      node: {
        resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, hostIPs: ['192.168.1.5'],
        serviceEnvFor: (pod) => {
          asked.push(pod.metadata.name);
          if (!synced) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', 'services have not yet been read at least once, cannot construct envvars');
          return new Map([['KUBERNETES_SERVICE_HOST', '10.96.0.1'], ['KUBERNETES_SERVICE_PORT', '443']]);
        },
      },
    });
    const own: Container = { ...app, env: [{ name: 'KUBERNETES_SERVICE_PORT', value: '6443' }, { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' }] };
    const pod = makePod({ initContainers: [], containers: [own] });
    const early = await withServices.syncPod(pod);
    expect(failedSteps(early)).toEqual([{ step: 'startContainer', target: 'app', reason: 'CreateContainerConfigError', code: 'KLT_ERR_CONTAINER_CONFIG' }]);
    expect(early.steps.find((s) => !s.ok)?.error?.message).toBe('services have not yet been read at least once, cannot construct envvars');
    expect(lifecycle(cri)).toEqual(['runPodSandbox web']);

    synced = true;
    expect((await withServices.syncPod(pod)).ok).toBe(true);
    const config = [...cri.containers.values()].find((c) => c.config.metadata.name === 'app')!.config;
    const envs = Object.fromEntries((config.envs ?? []).map((e) => [e.key, Buffer.from(e.value ?? '').toString()]));
    expect(envs).toMatchObject({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '6443', URL: 'https://10.96.0.1:6443' });
    expect(asked).toEqual(['web', 'web']);
  });

  it('gives a container without limits the node\'s allocatable for its limits.cpu / limits.memory variables', async () => {
    const withAllocatable = build({ node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, nodeAllocatable: { cpu: '3500m', memory: '4294967296' } } });
    const resource = (name: string, res: string) => ({ name, valueFrom: { resourceFieldRef: { resource: res } } });
    const limited: Container = { ...app, env: [resource('CPU_LIMIT', 'limits.cpu'), resource('MEMORY_LIMIT', 'limits.memory')] };
    expect((await withAllocatable.syncPod(makePod({ initContainers: [], containers: [limited] }))).ok).toBe(true);
    const config = [...cri.containers.values()].find((c) => c.config.metadata.name === 'app')!.config;
    const envs = Object.fromEntries((config.envs ?? []).map((e) => [e.key, Buffer.from(e.value ?? '').toString()]));
    expect(envs).toMatchObject({ CPU_LIMIT: '4', MEMORY_LIMIT: '4294967296' });
  });

  it('gives a host-network container the node\'s IPs as its status.podIP(s), before any status was written', async () => {
    const dualStack = build({ node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, hostIPs: ['192.168.1.5', 'fd00::5'] } });
    const field = (name: string, fieldPath: string) => ({ name, valueFrom: { fieldRef: { fieldPath } } });
    const reader: Container = { ...app, env: [field('POD_IP', 'status.podIP'), field('POD_IPS', 'status.podIPs'), field('HOST_IP', 'status.hostIP'), field('HOST_IPS', 'status.hostIPs')] };
    const envOf = (podName: string) => {
      const config = [...cri.containers.values()].find((c) => cri.sandboxes.get(c.sandboxId)?.config.metadata.name === podName)!.config;
      return Object.fromEntries((config.envs ?? []).map((e) => [e.key, Buffer.from(e.value ?? '').toString()]));
    };
    expect((await dualStack.syncPod(makePod({ initContainers: [], containers: [reader], hostNetwork: true }))).ok).toBe(true);
    expect(envOf('web')).toMatchObject({ POD_IP: '192.168.1.5', POD_IPS: '192.168.1.5,fd00::5', HOST_IP: '192.168.1.5', HOST_IPS: '192.168.1.5,fd00::5' });

    expect((await dualStack.syncPod({ ...makePod({ initContainers: [], containers: [reader] }), metadata: { name: 'own', namespace: 'shop', uid: 'uid-2' } })).ok).toBe(true);
    expect(envOf('own')).toMatchObject({ POD_IP: expect.stringMatching(/^10\.88\.0\./), HOST_IP: '192.168.1.5' });
  });

  it('refuses a runAsNonRoot container whose image runs as root, and starts one whose image has a uid', async () => {
    cri.addImage('rootful:1');
    cri.addImage('rootless:1', { uid: { value: '65534' } });
    const nonRoot = (name: string, image: string): Container => ({ name, image, securityContext: { runAsNonRoot: true } });
    const result = await manager.syncPod(makePod({ initContainers: [], containers: [nonRoot('a', 'rootful:1'), nonRoot('b', 'rootless:1')] }));
    expect(failedSteps(result)).toEqual([{ step: 'startContainer', target: 'a', reason: 'CreateContainerConfigError', code: 'KLT_ERR_CONTAINER_CONFIG' }]);
    expect(cri.latestContainer('b')?.state).toBe('CONTAINER_RUNNING');
  });

  it('never pulls a present image under IfNotPresent, pulls under Always, and fails Never without it', async () => {
    await manager.syncPod(makePod({ initContainers: [], containers: [{ ...app, imagePullPolicy: 'IfNotPresent' }] }));
    expect(cri.calls.filter((c) => c.startsWith('pullImage'))).toEqual([]);
    expect(cri.calls).toContain('imageStatus nginx:1.27');

    cri.calls.length = 0;
    const always = await manager.syncPod({ ...makePod({ initContainers: [], containers: [{ name: 'latest', image: 'nginx' }] }), metadata: { name: 'other', namespace: 'shop', uid: 'uid-2' } });
    expect(always.ok).toBe(true);
    expect(cri.calls).toContain('imageStatus nginx:latest');
    expect(cri.calls).toContain('pullImage nginx:latest');

    const never = await manager.syncPod({ ...makePod({ initContainers: [], containers: [{ name: 'n', image: 'absent:1', imagePullPolicy: 'Never' }] }), metadata: { name: 'third', namespace: 'shop', uid: 'uid-3' } });
    expect(failedSteps(never)).toEqual([{ step: 'startContainer', target: 'n', reason: 'ErrImageNeverPull', code: 'KLT_ERR_IMAGE_NEVER_PULL' }]);
    expect(cri.calls.filter((c) => c === 'pullImage absent:1')).toEqual([]);
  });

  it('reports a failed pull with its image and time, and pulls nothing before the back-off it is handed ends', async () => {
    const pod = makePod({ initContainers: [], containers: [{ name: 'app', image: 'registry.example/app:2' }] });
    const pulls = () => cri.calls.filter((c) => c === 'pullImage registry.example/app:2').length;
    const reasons = (r: SyncPodResult) => failedSteps(r).map((s) => s.reason);

    cri.failNext('pullImage', new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'manifest unknown'));
    const failed = await manager.syncPod(pod);
    expect(reasons(failed)).toEqual(['ErrImagePull']);
    const failedAt = clock.now();
    expect(failed.steps.find((s) => !s.ok)?.pullFailure).toEqual({ image: 'registry.example/app:2', atMs: failedAt });
    expect(pulls()).toBe(1);

    const ends = { 'registry.example/app:2': failedAt + 10_000 };
    clock.advance(9_999);
    const refused = await manager.syncPod(pod, { imagePullBackOffEnds: ends });
    expect(reasons(refused)).toEqual(['ImagePullBackOff']);
    expect(refused.steps.find((s) => !s.ok)?.pullFailure).toBeUndefined();
    expect(pulls()).toBe(1);

    clock.advance(1);
    const ok = await manager.syncPod(pod, { imagePullBackOffEnds: ends });
    expect(ok.ok).toBe(true);
    expect(pulls()).toBe(2);
  });

  it('restarts a crashed container at once the first time, then backs off (CrashLoopBackOff)', async () => {
    const pod = makePod({ initContainers: [], containers: [sidecar] });
    await manager.syncPod(pod);
    cri.exitContainer(cri.latestContainer('sidecar')?.id ?? '', 1);
    clock.advance(1000);
    expect((await manager.syncPod(pod)).ok).toBe(true);
    expect(cri.containerIdsByName('sidecar')).toHaveLength(2);

    cri.exitContainer(cri.latestContainer('sidecar')?.id ?? '', 1);
    clock.advance(1000);
    const backingOff = await manager.syncPod(pod);
    expect(failedSteps(backingOff)).toEqual([{ step: 'startContainer', target: 'sidecar', reason: 'CrashLoopBackOff', code: 'KLT_ERR_CONTAINER_BACKOFF' }]);
    expect(cri.containerIdsByName('sidecar')).toHaveLength(2);

    clock.advance(10_000);
    expect((await manager.syncPod(pod)).ok).toBe(true);
    expect(cri.containerIdsByName('sidecar')).toHaveLength(3);
  });

  it('returns plain JSON data', async () => {
    cri.failNext('createContainer');
    const result = await manager.syncPod(makePod({ initContainers: [] }));
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    const status = await manager.getPodStatus('uid-1');
    expect(JSON.parse(JSON.stringify(status))).toEqual(status);
  });
});

describe('runtimeManager.killPod', () => {
  it('stops every running container with the grace period before stopping the sandbox', async () => {
    const pod = makePod({ initContainers: [] });
    await manager.syncPod(pod);
    cri.calls.length = 0;
    const result = await manager.killPod(pod, 7);
    expect(result.ok).toBe(true);
    const calls = lifecycle(cri);
    expect(calls.slice(0, 2).sort()).toEqual(['stopContainer app', 'stopContainer sidecar']);
    expect(calls.slice(2)).toEqual(['stopPodSandbox web']);
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(7);
    expect(cri.latestContainer('sidecar')?.stopTimeoutSeconds).toBe(7);
    // Stopped gracefully (143), not killed by the sandbox stop (137).
    expect(cri.latestContainer('app')?.exitCode).toBe(143);
    expect([...cri.sandboxes.values()][0]?.state).toBe('SANDBOX_NOTREADY');
    expect(cri.containers.size).toBe(2); // nothing removed
  });

  it('uses the pod grace period without an override', async () => {
    const pod = makePod({ initContainers: [], terminationGracePeriodSeconds: 12 });
    await manager.syncPod(pod);
    await manager.killPod(pod);
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(12);
  });

  it('still stops the sandbox when a container fails to stop, and reports the failure', async () => {
    const pod = makePod({ initContainers: [], containers: [app] });
    await manager.syncPod(pod);
    cri.failNext('stopContainer');
    const result = await manager.killPod(pod, 1);
    expect(result.ok).toBe(false);
    expect(result.steps.map((s) => `${s.step}:${s.ok}`)).toEqual(['killContainer:false', 'killPodSandbox:true']);
  });
});

describe('runtimeManager.killPod of a runtime-only pod (an orphan)', () => {
  it('stops what runs under the uid with the 2 s floor, naming the pod from the runtime', async () => {
    await manager.syncPod(makePod({ initContainers: [] }));
    cri.calls.length = 0;
    const result = await manager.killPod(runtimeOnlyPod('uid-1'), 1);
    expect(result.ok).toBe(true);
    expect(lifecycle(cri).sort()).toEqual(['stopContainer app', 'stopContainer sidecar', 'stopPodSandbox web']);
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(2);
    expect(result.steps.find((s) => s.step === 'killPodSandbox')?.target).toBe('shop/web');
  });
});

describe('runtimeManager.removePod', () => {
  it('removes the containers, then the sandbox', async () => {
    const pod = makePod({ initContainers: [] });
    await manager.syncPod(pod);
    await manager.killPod(pod, 0);
    cri.calls.length = 0;
    const result = await manager.removePod('uid-1');
    expect(result.ok).toBe(true);
    expect(lifecycle(cri)).toEqual(['removeContainer sidecar', 'removeContainer app', 'removePodSandbox web']);
    expect(cri.containers.size).toBe(0);
    expect(cri.sandboxes.size).toBe(0);
  });
});

describe('runtimeManager.getPodStatus', () => {
  it('reports sandboxes and containers newest first with hash and restart count read back', async () => {
    const pod = makePod({ initContainers: [], containers: [app] });
    await manager.syncPod(pod);
    cri.exitContainer(cri.latestContainer('app')?.id ?? '', 2);
    await manager.syncPod(pod);
    const status = await manager.getPodStatus('uid-1');
    expect(status).toMatchObject({ uid: 'uid-1', name: 'web', namespace: 'shop' });
    expect(status.ips).toHaveLength(1);
    expect(status.containers.map((c) => [c.name, c.state, c.restartCount])).toEqual([['app', 'running', 1], ['app', 'exited', 0]]);
    expect(status.containers[1]?.exitCode).toBe(2);
  });

  it('is empty for an unknown pod', async () => {
    expect(await manager.getPodStatus('nope')).toEqual({ uid: 'nope', name: '', namespace: '', ips: [], sandboxes: [], containers: [] });
  });
});

describe('runtimeManager passthroughs', () => {
  it('runs execSync and returns text output', async () => {
    await manager.syncPod(makePod({ initContainers: [] }));
    const result = await manager.execSync(cri.latestContainer('app')?.id ?? '', ['echo', 'hi'], 1);
    expect(result).toEqual({ stdout: 'echo hi', stderr: '', exitCode: 0 });
  });

  it('returns the image filesystem info', async () => {
    const info = await manager.imageFsInfo();
    expect(info.image_filesystems[0]?.fs_id?.mountpoint).toBe('/var/lib/fake');
  });
});

describe('runtimeManager.syncPod with ephemeral containers', () => {
  const debug = { name: 'debugger', image: 'busybox:1.36', command: ['sh'], stdin: true, tty: true, targetContainerName: 'app' };

  it('starts an ephemeral container once in the running sandbox, in the target\'s PID namespace, and never again', async () => {
    const pod = makePod({ initContainers: [], containers: [app] });
    const first = await manager.syncPod(pod);
    const debugging = { ...pod, spec: { ...pod.spec, ephemeralContainers: [debug] } };
    cri.calls.length = 0;
    const second = await manager.syncPod(debugging);
    expect(second.ok).toBe(true);
    expect(second.actions.ephemeralContainersToStart).toEqual(['debugger']);
    expect(lifecycle(cri)).toEqual(['createContainer debugger', 'startContainer debugger']);
    const started = cri.latestContainer('debugger');
    expect(started?.sandboxId).toBe(first.sandboxId);
    expect(started?.config).toMatchObject({ stdin: true, tty: true, linux: { security_context: { namespace_options: { pid: 'TARGET', target_id: cri.latestContainer('app')?.id } } } });

    // Exited, even with a failure and restartPolicy Always: not started again.
    cri.exitContainer(started?.id ?? '', 1);
    cri.calls.length = 0;
    await manager.syncPod(debugging);
    expect(lifecycle(cri)).toEqual([]);
  });

  it('fails the start with CreateContainerConfigError when the target container is unknown, and goes on', async () => {
    const pod = makePod({ initContainers: [], containers: [app], ephemeralContainers: [{ ...debug, targetContainerName: 'gone' }] });
    await manager.syncPod({ ...pod, spec: { ...pod.spec, ephemeralContainers: [] } });
    const result = await manager.syncPod(pod);
    expect(failedSteps(result)).toEqual([{ step: 'startContainer', target: 'debugger', reason: 'CreateContainerConfigError', code: 'KLT_ERR_CONTAINER_CONFIG' }]);
    expect(cri.latestContainer('debugger')).toBeUndefined();
  });

  it('stops a running ephemeral container with the pod', async () => {
    const pod = makePod({ initContainers: [], containers: [app], ephemeralContainers: [debug] });
    await manager.syncPod({ ...pod, spec: { ...pod.spec, ephemeralContainers: [] } });
    await manager.syncPod(pod);
    expect(cri.latestContainer('debugger')?.state).toBe('CONTAINER_RUNNING');
    cri.calls.length = 0;
    const killed = await manager.killPod(pod, 0);
    expect(killed.ok).toBe(true);
    expect(lifecycle(cri)).toEqual(expect.arrayContaining(['stopContainer debugger', 'stopContainer app', 'stopPodSandbox web']));
  });
});
