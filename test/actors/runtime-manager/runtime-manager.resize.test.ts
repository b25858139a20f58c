import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actuatedState, type ActuatedState } from '../../../src/actors/runtime-manager/actuated-state.js';
import type { PodCgroupAccess } from '../../../src/actors/runtime-manager/pod-resizer.js';
import { createRuntimeManager } from '../../../src/actors/runtime-manager/runtime-manager.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import type { ResourceConfig } from '../../../src/domain/cgroups/resource-config.js';
import { resourceConfigForPod } from '../../../src/domain/cgroups/pod-cgroup.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { Clock } from '../../../src/ports/clock.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { FakeCri } from '../../fakes/fake-cri.js';

class SimulatedClock implements Clock {
  private ms = 1_000_000;
  now(): number { return this.ms; }
  setTimeout(): unknown { throw new Error('not used'); }
  clearTimeout(): void {}
}

const Mi = 2 ** 20;
const res = (cpu: string, memory: string) => ({ requests: { cpu, memory }, limits: { cpu, memory } });
const app: Container = { name: 'app', image: 'nginx:1.27', resources: res('500m', '256Mi') };
const web: Container = { name: 'web', image: 'nginx:1.27', resources: res('200m', '128Mi') };

function makePod(containers: Container[]): Pod {
  return { metadata: { name: 'shop', namespace: 'ns', uid: 'uid-1' }, spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30 } };
}

/** A pod cgroup held in memory, its writes logged into the same list as the CRI calls. */
function podCgroup(log: string[], start: (pod: Pod) => ResourceConfig): PodCgroupAccess & { config?: ResourceConfig } {
  const settings = { enforceCpuLimits: true, cpuPeriodMicros: 100_000, podPidsLimit: -1 };
  const access: PodCgroupAccess & { config?: ResourceConfig } = {
    read: async (pod) => (access.config ??= start(pod)),
    desired: (pod) => resourceConfigForPod(pod, settings),
    write: async (_pod, config) => {
      log.push(`podCgroup ${Object.keys(config).join('+')}`);
      access.config = { ...access.config, ...config };
    },
  };
  return access;
}

let logsDir: string;
let cri: FakeCri;
let actuated: ActuatedState;
let calls: string[];
let cgroup: ReturnType<typeof podCgroup>;
let manager: RuntimeManager;

/** The calls that change something, CRI and pod cgroup, in order. */
const changes = () => calls.filter((c) => /^(createContainer|startContainer|stopContainer|updateContainerResources|podCgroup)/.test(c));

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-resize-'));
  const clock = new SimulatedClock();
  cri = new FakeCri({ clock });
  calls = cri.calls;
  cri.addImage('nginx:1.27');
  actuated = actuatedState();
  cgroup = podCgroup(calls, (pod) => resourceConfigForPod(pod, { enforceCpuLimits: true, cpuPeriodMicros: 100_000, podPidsLimit: -1 }));
  manager = createRuntimeManager({
    cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(), actuated,
    node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3, podCgroup: cgroup },
  });
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

/** Starts the pod and forgets the calls it took. */
async function started(pod: Pod): Promise<void> {
  expect((await manager.syncPod(pod)).ok).toBe(true);
  await cgroup.read(pod);
  calls.length = 0;
}

describe('runtimeManager.syncPod: in-place resize', () => {
  it('records what a container starts with', async () => {
    await started(makePod([app]));
    expect(actuated.containers('uid-1')).toEqual({ app: { cpuRequestMilli: 500, cpuLimitMilli: 500, memoryRequestBytes: 256 * Mi, memoryLimitBytes: 256 * Mi } });
  });

  it('raises the pod cgroup, then updates the running container without restarting it, and reports the resize applied', async () => {
    await started(makePod([app]));
    const id = cri.latestContainer('app')!.id;
    const result = await manager.syncPod(makePod([{ ...app, resources: res('1', '256Mi') }]));
    expect(result.ok).toBe(true);
    expect(result.resize).toEqual({ status: 'applied' });
    expect(result.resizeInProgress).toBeUndefined();
    expect(changes()).toEqual(['podCgroup cpuQuota+cpuPeriod', 'podCgroup cpuShares', 'updateContainerResources app']);
    expect(cri.resourceUpdates).toEqual([{ id, linux: { cpu_shares: '1024', cpu_period: '100000', cpu_quota: '100000', memory_limit_in_bytes: String(256 * Mi), oom_score_adj: '-997' } }]);
    // No cpuset in the request: the runtime keeps the CPU manager's.
    expect(cri.resourceUpdates[0]!.linux.cpuset_cpus).toBeUndefined();
    expect(result.steps.filter((s) => s.step !== 'computePodActions' && s.step !== 'configPodSandbox').map((s) => `${s.step}:${s.resource}`))
      .toEqual(['resizePodInPlace:undefined', 'updatePodCgroup:cpu', 'updatePodCgroup:cpu', 'updateContainerResources:cpu']);
    expect(actuated.containers('uid-1')?.app?.cpuLimitMilli).toBe(1000);
    expect(cri.latestContainer('app')!.id).toBe(id);

    calls.length = 0;
    const again = await manager.syncPod(makePod([{ ...app, resources: res('1', '256Mi') }]));
    expect(changes()).toEqual([]);
    expect(again.resize).toBeUndefined();
  });

  it('shrinks the containers before the pod cgroup, decreases before increases', async () => {
    await started(makePod([app, web]));
    cri.usage.set(cri.latestContainer('app')!.id, { cpuNs: 0n, workingSetBytes: BigInt(10 * Mi) });
    cri.usage.set(cri.latestContainer('web')!.id, { cpuNs: 0n, workingSetBytes: BigInt(10 * Mi) });
    // app: memory down; web: memory up, so the pod's memory goes down.
    const result = await manager.syncPod(makePod([{ ...app, resources: res('500m', '128Mi') }, { ...web, resources: res('200m', '192Mi') }]));
    expect(result.resize).toEqual({ status: 'applied' });
    expect(changes()).toEqual(['updateContainerResources app', 'updateContainerResources web', 'podCgroup memoryLimitBytes']);
  });

  it('refuses a memory limit below current usage before changing anything', async () => {
    await started(makePod([app]));
    cri.usage.set(cri.latestContainer('app')!.id, { cpuNs: 0n, workingSetBytes: BigInt(200 * Mi) });
    const result = await manager.syncPod(makePod([{ ...app, resources: res('500m', '128Mi') }]));
    expect(result.ok).toBe(false);
    expect(result.resize).toEqual({
      status: 'failed',
      message: `cannot decrease memory limits: [attempting to set pod memory limit (${128 * Mi}) below current usage (${200 * Mi}), ` +
        `attempting to set container "app" memory limit (${128 * Mi}) below current usage (${200 * Mi})]`,
    });
    expect(result.steps.at(-1)).toMatchObject({ step: 'resizePodInPlace', ok: false, reason: 'ErrResizePodInPlace', error: { code: 'KLT_ERR_RESIZE_IN_PLACE' } });
    expect(changes()).toEqual([]);
    expect(result.resizeInProgress).toBe(true);
  });

  it('stops at a failed update, reports it, and finishes the resize at the next sync', async () => {
    await started(makePod([app, web]));
    const bigger = makePod([{ ...app, resources: res('1', '256Mi') }, { ...web, resources: res('400m', '128Mi') }]);
    cri.failNext('updateContainerResources');
    const failed = await manager.syncPod(bigger);
    expect(failed.ok).toBe(false);
    expect(failed.resize).toEqual({ status: 'failed', message: 'injected updateContainerResources failure' });
    expect(failed.steps.at(-1)).toMatchObject({ step: 'updateContainerResources', target: 'app', ok: false, reason: 'ErrResizePodInPlace' });
    expect(changes().filter((c) => c.startsWith('update'))).toEqual(['updateContainerResources app']);

    calls.length = 0;
    const retried = await manager.syncPod(bigger);
    expect(retried.resize).toEqual({ status: 'applied' });
    expect(changes()).toEqual(['updateContainerResources app', 'updateContainerResources web']);
    expect(actuated.containers('uid-1')?.web?.cpuLimitMilli).toBe(400);
  });

  it('restarts a container whose resizePolicy asks for it, and records the new amounts on start', async () => {
    const strict: Container = { ...app, resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] };
    await started(makePod([strict]));
    const result = await manager.syncPod(makePod([{ ...strict, resources: res('500m', '512Mi') }]));
    expect(result.ok).toBe(true);
    expect(result.actions.containersToKill).toMatchObject([{ name: 'app', message: 'Container app resize requires restart' }]);
    expect(changes()).toEqual(['stopContainer app', 'podCgroup memoryLimitBytes', 'createContainer app', 'startContainer app']);
    expect(actuated.containers('uid-1')?.app?.memoryLimitBytes).toBe(512 * Mi);
  });

  it('takes a container without a record at what the runtime reports: in place when it matches, updated when it does not', async () => {
    await started(makePod([app]));
    const fresh = actuatedState();
    const report = (linux: Record<string, string>) => {
      const status = cri.runtime.containerStatus.bind(cri.runtime);
      cri.runtime.containerStatus = async (id) => {
        const answer = await status(id);
        return { ...answer, status: answer.status ? { ...answer.status, resources: { linux: linux as never } } : null };
      };
    };
    const restarted = createRuntimeManager({
      cri, clock: new SimulatedClock(), podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(), actuated: fresh,
      node: { resolvConf: '', memoryCapacityBytes: 8 * 1024 ** 3 },
    });
    report({ cpu_shares: '512', cpu_quota: '50000', cpu_period: '100000', memory_limit_in_bytes: String(256 * Mi) });
    const same = await restarted.syncPod(makePod([app]));
    expect(same.resize).toBeUndefined();
    expect(changes()).toEqual([]);

    report({ cpu_shares: '256', cpu_quota: '25000', cpu_period: '100000', memory_limit_in_bytes: String(256 * Mi) });
    const differs = await restarted.syncPod(makePod([app]));
    expect(differs.resize).toEqual({ status: 'applied' });
    expect(differs.actions.containersToUpdate?.cpu[0]?.current).toMatchObject({ cpuRequestMilli: 250, cpuLimitMilli: 250 });
    expect(changes()).toEqual(['updateContainerResources app']);
    expect(fresh.containers('uid-1')?.app).toEqual({ cpuRequestMilli: 500, cpuLimitMilli: 500, memoryRequestBytes: 256 * Mi, memoryLimitBytes: 256 * Mi });
  });

  it('forgets the pod\'s actuated resources when the pod is removed', async () => {
    await started(makePod([app]));
    await manager.killPod(makePod([app]));
    await manager.removePod('uid-1');
    expect(actuated.containers('uid-1')).toBeUndefined();
  });
});
