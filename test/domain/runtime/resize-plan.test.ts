import { describe, expect, it } from 'vitest';
import { zeroAmounts, type ResourceAmounts } from '../../../src/domain/runtime/actuated-resources.js';
import { decreasingMemoryLimits, memoryResizeRefusal } from '../../../src/domain/runtime/memory-resize-check.js';
import type { ContainerToUpdate } from '../../../src/domain/runtime/resize-actions.js';
import { planPodResize, type ResizeStep } from '../../../src/domain/runtime/resize-plan.js';

const amounts = (cpu: number, memory: number): ResourceAmounts => ({ cpuRequestMilli: cpu, cpuLimitMilli: cpu, memoryRequestBytes: memory, memoryLimitBytes: memory });
const update = (name: string, from: ResourceAmounts, to: ResourceAmounts): ContainerToUpdate => ({ name, id: `${name}-id`, current: from, desired: to });

/** Steps as short strings: `pod:<resource>:<settings>` or `<container>:<resource>`. */
const show = (steps: ResizeStep[]) => steps.map((s) => (s.kind === 'podCgroup' ? `pod:${s.resource}:${Object.keys(s.config).join('+')}` : `${s.container.name}:${s.resource}`));

describe('planPodResize', () => {
  it('raises the pod cgroup before its containers when growing (limits before requests)', () => {
    const grow = update('app', amounts(500, 100), amounts(1000, 200));
    const steps = planPodResize({ memory: [grow], cpu: [grow] }, false, {
      current: { memoryLimitBytes: 100, cpuQuota: 50_000, cpuPeriod: 100_000, cpuShares: 512 },
      desired: { memoryLimitBytes: 200, cpuQuota: 100_000, cpuPeriod: 100_000, cpuShares: 1024 },
    });
    expect(show(steps)).toEqual(['pod:memory:memoryLimitBytes', 'app:memory', 'pod:cpu:cpuQuota+cpuPeriod', 'pod:cpu:cpuShares', 'app:cpu']);
  });

  it('lowers the containers before the pod cgroup when shrinking (requests before limits)', () => {
    const shrink = update('app', amounts(1000, 200), amounts(500, 100));
    const steps = planPodResize({ memory: [shrink], cpu: [shrink] }, false, {
      current: { memoryLimitBytes: 200, cpuQuota: 100_000, cpuPeriod: 100_000, cpuShares: 1024 },
      desired: { memoryLimitBytes: 100, cpuQuota: 50_000, cpuPeriod: 100_000, cpuShares: 512 },
    });
    expect(show(steps)).toEqual(['app:memory', 'pod:memory:memoryLimitBytes', 'app:cpu', 'pod:cpu:cpuShares', 'pod:cpu:cpuQuota+cpuPeriod']);
  });

  it('keeps a pod setting the allocated pod leaves unset, and counts unlimited as the largest', () => {
    const shrink = update('app', amounts(0, 200), amounts(0, 100));
    const steps = planPodResize({ memory: [shrink], cpu: [] }, false, { current: { memoryLimitBytes: -1, cpuShares: 2 }, desired: { cpuShares: 2 } });
    expect(show(steps)).toEqual(['app:memory']);
    const limited = planPodResize({ memory: [shrink], cpu: [] }, false, { current: { memoryLimitBytes: -1 }, desired: { memoryLimitBytes: 100 } });
    expect(show(limited)).toEqual(['app:memory', 'pod:memory:memoryLimitBytes']);
  });

  it('brings the pod cgroup to the allocated pod for a restart alone, and plans only containers without a pod cgroup', () => {
    const steps = planPodResize(undefined, true, { current: { memoryLimitBytes: 100, cpuQuota: 10_000, cpuShares: 100 }, desired: { memoryLimitBytes: 300, cpuQuota: 10_000, cpuShares: 200 } });
    expect(show(steps)).toEqual(['pod:memory:memoryLimitBytes', 'pod:cpu:cpuShares']);
    const grow = update('app', amounts(500, 100), amounts(1000, 100));
    expect(show(planPodResize({ memory: [], cpu: [grow] }, false, undefined))).toEqual(['app:cpu']);
  });
});

describe('memory resize check', () => {
  const shrink = update('app', amounts(0, 200), amounts(0, 100));
  const steps = planPodResize({ memory: [shrink], cpu: [] }, false, { current: { memoryLimitBytes: 300 }, desired: { memoryLimitBytes: 150 } });
  const limits = decreasingMemoryLimits(steps, 300);

  it('finds the pod and container limits that go down (or appear)', () => {
    expect(limits).toEqual({ pod: 150, containers: [{ id: 'app-id', name: 'app', limit: 100 }] });
    const added = update('app', zeroAmounts, amounts(0, 100));
    expect(decreasingMemoryLimits(planPodResize({ memory: [added], cpu: [] }, false, undefined), undefined).containers).toHaveLength(1);
    const grow = update('app', amounts(0, 100), amounts(0, 200));
    expect(decreasingMemoryLimits(planPodResize({ memory: [grow], cpu: [] }, false, undefined), undefined)).toEqual({ containers: [] });
  });

  it('refuses with Go\'s message a limit at or below current usage, or a usage not reported', () => {
    expect(memoryResizeRefusal(limits, { pod: 120, containers: { 'app-id': 90 } })).toBeNull();
    expect(memoryResizeRefusal(limits, { pod: 120, containers: { 'app-id': 100 } }))
      .toBe('cannot decrease memory limits: attempting to set container "app" memory limit (100) below current usage (100)');
    expect(memoryResizeRefusal(limits, { containers: { 'app-id': 150 } }))
      .toBe('cannot decrease memory limits: [missing pod memory usage, attempting to set container "app" memory limit (100) below current usage (150)]');
  });
});
