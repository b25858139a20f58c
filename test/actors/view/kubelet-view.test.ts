import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createKubeletView } from '../../../src/actors/view/kubelet-view.js';
import { MetricsCollector } from '../../../src/actors/view/metrics-collector.js';
import type { SyncLoopContext } from '../../../src/machines/sync-loop.machine.js';

function context(names: string[]): SyncLoopContext {
  const pods = Object.fromEntries(names.map((name) => [`uid-${name}`, {
    pod: { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { containers: [{ name: 'main', image: 'busybox' }] } },
    lifecycle: 'active' as const, removed: false, probedStarts: {},
    status: { phase: 'Running', containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] },
  }]));
  return { pods } as unknown as SyncLoopContext;
}

function view(opts: { metricsMaxAgeMs?: number } = {}) {
  const clock = new SimulatedClock();
  let ctx = context(['a']);
  const v = createKubeletView({
    syncLoop: () => ctx,
    pleg: () => undefined,
    configz: () => ({ kubeletconfig: {} }),
    podLogsDir: () => '/var/log/pods',
    metrics: new MetricsCollector(clock, () => 'x', 0),
    runtimeCalls: () => new Map(),
    clock,
    ...opts,
  });
  return { v, clock, setContext: (c: SyncLoopContext) => (ctx = c) };
}

describe('createKubeletView', () => {
  it('answers the same pod list while the syncLoop\'s context is the same, and a new one when it changes', () => {
    const { v, setContext } = view();
    const first = v.pods();
    expect(v.pods()).toBe(first);
    setContext(context(['a', 'b']));
    const second = v.pods() as readonly { metadata: { name: string } }[];
    expect(second).not.toBe(first);
    expect(second.map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });

  it('answers one metrics snapshot for metricsMaxAgeMs, then builds a fresh one', () => {
    const { v, clock, setContext } = view({ metricsMaxAgeMs: 1000 });
    const first = v.metrics() as { runningPods: number };
    expect(first.runningPods).toBe(1);
    setContext(context(['a', 'b']));
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
