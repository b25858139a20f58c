import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { desiredResourceAmounts, type ResourceAmounts } from '../../../src/domain/runtime/actuated-resources.js';
import { computePodActions, type PodActions } from '../../../src/domain/runtime/compute-pod-actions.js';
import { hashContainer, hashContainerWithoutResources } from '../../../src/domain/runtime/container-hash.js';
import type { RuntimeContainerStatus, RuntimePodStatus } from '../../../src/domain/runtime/pod-status.js';

const res = (cpu: string, memory: string) => ({ requests: { cpu, memory }, limits: { cpu, memory } });
const app: Container = { name: 'app', image: 'app:1', resources: res('500m', '256Mi') };
const web: Container = { name: 'web', image: 'web:1', resources: res('200m', '128Mi') };
const proxy: Container = { name: 'proxy', image: 'proxy:1', restartPolicy: 'Always', resources: res('100m', '64Mi') };

function pod(containers: Container[], opts: { initContainers?: Container[]; podResources?: Pod['spec']['resources']; static?: boolean } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'uid', ...(opts.static ? { annotations: { 'kubernetes.io/config.source': 'file' } } : {}) },
    spec: {
      containers,
      ...(opts.initContainers ? { initContainers: opts.initContainers } : {}),
      ...(opts.podResources ? { resources: opts.podResources } : {}),
    },
  };
}

/** A running container started from `startedAs` (the hashes it carries) under the id `<name>-id`. */
function running(startedAs: Container): RuntimeContainerStatus {
  return {
    id: `${startedAs.name}-id`, name: startedAs.name, state: 'running', createdAt: '1', startedAt: '1', finishedAt: '0', exitCode: 0, reason: '', message: '',
    image: startedAs.image, imageRef: 'sha256:x', hash: hashContainer(startedAs), hashWithoutResources: hashContainerWithoutResources(startedAs), restartCount: 0, sandboxId: 'sb',
  };
}

function status(containers: RuntimeContainerStatus[]): RuntimePodStatus {
  return { uid: 'uid', name: 'p', namespace: 'ns', ips: ['10.0.0.2'], sandboxes: [{ id: 'sb', attempt: 0, ready: true, createdAt: '1', ips: ['10.0.0.2'], hasNetworkStatus: true }], containers };
}

/** The actuated amounts of containers started from these specs in `p`. */
function actuatedAs(p: Pod, ...started: Container[]): Record<string, ResourceAmounts> {
  return Object.fromEntries(started.map((c) => [c.name, desiredResourceAmounts(p, c)]));
}

function updates(a: PodActions) {
  return { memory: a.containersToUpdate?.memory.map((u) => u.name) ?? [], cpu: a.containersToUpdate?.cpu.map((u) => u.name) ?? [] };
}

describe('computePodActions: in-place resize', () => {
  it('does nothing when the allocated resources are the actuated ones', () => {
    const p = pod([app, web]);
    const a = computePodActions(p, status([running(app), running(web)]), {}, { actuated: actuatedAs(p, app, web) });
    expect(a.containersToUpdate).toBeUndefined();
    expect(a.updatePodResources).toBeUndefined();
    expect(a.containersToKill).toEqual([]);
    expect(a.containersToStart).toEqual([]);
  });

  it('updates a running container in place, without restarting it, when its cpu grows', () => {
    const grown: Container = { ...app, resources: res('1', '256Mi') };
    const a = computePodActions(pod([grown, web]), status([running(app), running(web)]), {}, { actuated: actuatedAs(pod([app, web]), app, web) });
    expect(updates(a)).toEqual({ memory: [], cpu: ['app'] });
    expect(a.containersToUpdate?.cpu[0]).toMatchObject({ id: 'app-id', desired: { cpuLimitMilli: 1000, cpuRequestMilli: 1000 }, current: { cpuLimitMilli: 500 } });
    expect(a.containersToKill).toEqual([]);
    expect(a.killPod).toBe(false);
  });

  it('orders each resource\'s updates decreases first, increases after, per resource', () => {
    const old = pod([app, web]);
    // app: cpu down, memory up; web: cpu up, memory down.
    const appNow: Container = { ...app, resources: res('250m', '512Mi') };
    const webNow: Container = { ...web, resources: res('400m', '64Mi') };
    const a = computePodActions(pod([appNow, webNow]), status([running(app), running(web)]), {}, { actuated: actuatedAs(old, app, web) });
    expect(updates(a)).toEqual({ memory: ['web', 'app'], cpu: ['app', 'web'] });
  });

  it('restarts the container, with Go\'s message, when its resizePolicy says RestartContainer for a resource that changed', () => {
    const withPolicy: Container = { ...app, resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] };
    const grown: Container = { ...withPolicy, resources: res('500m', '512Mi') };
    const a = computePodActions(pod([grown]), status([running(withPolicy)]), {}, { actuated: actuatedAs(pod([withPolicy]), withPolicy) });
    expect(a.containersToKill).toEqual([{ id: 'app-id', name: 'app', reason: 'ResizeRequiresRestart', message: 'Container app resize requires restart' }]);
    expect(a.containersToStart).toEqual(['app']);
    expect(a.updatePodResources).toBe(true);
    expect(a.containersToUpdate).toBeUndefined();
    expect(a.killPod).toBe(false);
  });

  it('updates in place when only a resource whose policy is NotRequired changed', () => {
    const withPolicy: Container = { ...app, resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] };
    const grown: Container = { ...withPolicy, resources: res('1', '256Mi') };
    const a = computePodActions(pod([grown]), status([running(withPolicy)]), {}, { actuated: actuatedAs(pod([withPolicy]), withPolicy) });
    expect(updates(a)).toEqual({ memory: [], cpu: ['app'] });
    expect(a.containersToKill).toEqual([]);
  });

  it('resizes a running sidecar, and restarts one among the init containers when its policy asks', () => {
    const old = pod([app], { initContainers: [proxy] });
    const grown: Container = { ...proxy, resources: res('300m', '64Mi') };
    const a = computePodActions(pod([app], { initContainers: [grown] }), status([running(proxy), running(app)]), {}, { actuated: actuatedAs(old, proxy, app) });
    expect(updates(a)).toEqual({ memory: [], cpu: ['proxy'] });

    const strict: Container = { ...proxy, resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] };
    const strictGrown: Container = { ...strict, resources: res('300m', '64Mi') };
    const b = computePodActions(pod([app], { initContainers: [strictGrown] }), status([running(strict), running(app)]), {},
      { actuated: actuatedAs(pod([app], { initContainers: [strict] }), strict, app) });
    expect(b.containersToKill.map((k) => [k.name, k.reason])).toEqual([['proxy', 'ResizeRequiresRestart']]);
    expect(b.initContainersToStart).toEqual([0]);
    expect(b.nextInitContainerToStart).toBe('proxy');
    expect(b.updatePodResources).toBe(true);
  });

  it('takes a limit the container leaves unset from the pod-level resources', () => {
    const bare: Container = { name: 'app', image: 'app:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } };
    const before = pod([bare], { podResources: { limits: { cpu: '1', memory: '1Gi' } } });
    const after = pod([bare], { podResources: { limits: { cpu: '2', memory: '1Gi' } } });
    expect(desiredResourceAmounts(before, bare).cpuLimitMilli).toBe(1000);
    const a = computePodActions(after, status([running(bare)]), {}, { actuated: actuatedAs(before, bare) });
    expect(updates(a)).toEqual({ memory: [], cpu: ['app'] });
    expect(a.containersToUpdate?.cpu[0]?.desired.cpuLimitMilli).toBe(2000);
  });

  it('updates once a running container without a record (Go\'s zero value)', () => {
    const a = computePodActions(pod([app]), status([running(app)]), {}, { actuated: {} });
    expect(updates(a)).toEqual({ memory: ['app'], cpu: ['app'] });
  });

  it('leaves containers not running, static pods and callers without actuated state alone', () => {
    const grown: Container = { ...app, resources: res('1', '256Mi') };
    const exited = { ...running(app), state: 'exited' as const, exitCode: 1 };
    const notRunning = computePodActions(pod([grown]), status([exited]), {}, { actuated: actuatedAs(pod([app]), app) });
    expect(notRunning.containersToUpdate).toBeUndefined();
    expect(notRunning.containersToStart).toEqual(['app']);
    expect(computePodActions(pod([grown], { static: true }), status([running(app)]), {}, { actuated: actuatedAs(pod([app]), app) }).containersToUpdate).toBeUndefined();
    expect(computePodActions(pod([grown]), status([running(app)])).containersToUpdate).toBeUndefined();
  });

  it('restarts a container whose spec changed beyond its resources through the hash, not the resize', () => {
    const changed: Container = { ...app, image: 'app:2', resources: res('1', '256Mi') };
    const a = computePodActions(pod([changed]), status([running(app)]), {}, { actuated: actuatedAs(pod([app]), app) });
    expect(a.containersToKill.map((k) => k.reason)).toEqual(['SpecChanged']);
    expect(a.containersToUpdate).toBeUndefined();
  });
});
