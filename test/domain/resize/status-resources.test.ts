import { describe, expect, it } from 'vitest';
import type { Container, ContainerStatus } from '../../../src/domain/pod/types.js';
import { containerStatusResources, runtimeContainerResources } from '../../../src/domain/resize/status-resources.js';

const main: Container = { name: 'main', image: 'x', resources: { requests: { cpu: '200m', memory: '128Mi' }, limits: { cpu: '400m', memory: '128Mi' } } };
const old = (resources: ContainerStatus['resources']): ContainerStatus => ({ name: 'main', ready: true, restartCount: 0, image: 'x', imageID: '', containerID: 'c://1', state: { running: {} }, ...(resources ? { resources } : {}) });

describe('a container\'s resources in its status', () => {
  it('reads the runtime\'s cgroup settings in Go\'s units', () => {
    expect(runtimeContainerResources({ cpu_period: '100000', cpu_quota: '20000', cpu_shares: '102', memory_limit_in_bytes: '67108864' })).toEqual({ cpuLimitMilli: 200, cpuRequestMilli: 100, memoryLimitBytes: 64 * 2 ** 20 });
    expect(runtimeContainerResources({ cpu_period: '100000', cpu_quota: '-1', cpu_shares: '0', memory_limit_in_bytes: '0' })).toBeUndefined();
  });

  it('is the allocation for a container that is not running, with the allocated requests', () => {
    expect(containerStatusResources(main, false, { cpuLimitMilli: 100 }, undefined)).toEqual({ resources: main.resources, allocatedResources: { cpu: '200m', memory: '128Mi' } });
  });

  it('takes what the runtime runs for a running container, canonical as Go writes quantities', () => {
    const r = containerStatusResources(main, true, { cpuLimitMilli: 1000, cpuRequestMilli: 100, memoryLimitBytes: 64 * 2 ** 20 }, undefined, true);
    expect(r.resources).toEqual({ limits: { cpu: '1', memory: '64Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
  });

  it('keeps the last reported values the runtime does not give while a resize runs, the allocation once settled', () => {
    const previous = old({ requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m', memory: '96Mi' } });
    expect(containerStatusResources(main, true, undefined, previous, false).resources).toEqual(previous.resources);
    expect(containerStatusResources(main, true, undefined, previous, true).resources).toEqual(main.resources);
  });

  it('leaves a tiny CPU figure as allocated when both are at the kernel\'s floor', () => {
    const tiny: Container = { name: 't', image: 'x', resources: { requests: { cpu: '1m' }, limits: { cpu: '5m' } } };
    expect(containerStatusResources(tiny, true, { cpuLimitMilli: 10, cpuRequestMilli: 2 }, undefined, true).resources).toEqual(tiny.resources);
  });
});
