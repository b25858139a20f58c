import { describe, expect, it } from 'vitest';
import { groupByPriority, migrateConfig, periodRequestedSeconds, shutdownClasses, type ShutdownClass, type ShutdownPod } from '../../../src/domain/node-shutdown/shutdown-groups.js';

const CRITICAL = 2_000_000_000;
const settings = (grace: string, critical: string, byPriority: { priority: number; shutdownGracePeriodSeconds: number }[] = []) =>
  ({ shutdownGracePeriod: grace, shutdownGracePeriodCriticalPods: critical, shutdownGracePeriodByPodPriority: byPriority });

describe('shutdownClasses (Go: migrateConfig and NewManager)', () => {
  it.each<[string, string, ShutdownClass[]]>([
    ['0s', '0s', []],
    ['20s', '10s', [{ priority: 0, gracePeriodSeconds: 10 }, { priority: CRITICAL, gracePeriodSeconds: 10 }]],
    ['30s', '10s', [{ priority: 0, gracePeriodSeconds: 20 }, { priority: CRITICAL, gracePeriodSeconds: 10 }]],
    ['30s', '0s', [{ priority: 0, gracePeriodSeconds: 30 }, { priority: CRITICAL, gracePeriodSeconds: 0 }]],
    ['10s', '20s', []],
    // Whole seconds: Go divides the durations by time.Second.
    ['10500ms', '2s', [{ priority: 0, gracePeriodSeconds: 8 }, { priority: CRITICAL, gracePeriodSeconds: 2 }]],
  ])('gives shutdownGracePeriod %s with %s for critical pods these classes', (grace, critical, classes) => {
    expect(shutdownClasses(settings(grace, critical), true)).toEqual(classes);
  });

  it('takes shutdownGracePeriodByPodPriority, sorted by priority, when its gate is on', () => {
    const byPriority = [{ priority: 100000, shutdownGracePeriodSeconds: 5 }, { priority: 0, shutdownGracePeriodSeconds: 30 }, { priority: 1000, shutdownGracePeriodSeconds: 10 }];
    expect(shutdownClasses(settings('0s', '0s', byPriority), true)).toEqual([
      { priority: 0, gracePeriodSeconds: 30 }, { priority: 1000, gracePeriodSeconds: 10 }, { priority: 100000, gracePeriodSeconds: 5 },
    ]);
    expect(shutdownClasses(settings('20s', '10s', byPriority), false)).toEqual(migrateConfig(20, 10));
  });

  it('asks logind for the sum of the classes', () => {
    expect(periodRequestedSeconds(migrateConfig(20, 10))).toBe(20);
    expect(periodRequestedSeconds([])).toBe(0);
  });
});

describe('groupByPriority (Go: groupByPriority and processShutdownEvent\'s grace override)', () => {
  const classes: ShutdownClass[] = [{ priority: 1, gracePeriodSeconds: 10 }, { priority: 2, gracePeriodSeconds: 20 }, { priority: 5, gracePeriodSeconds: 5 }];
  it.each<[string, ShutdownPod, number, number]>([
    ['below every class: the lowest', { uid: 'a', priority: 0 }, 0, 10],
    ['no priority counts as 0', { uid: 'a' }, 0, 10],
    ['on a boundary: that class', { uid: 'a', priority: 2 }, 1, 20],
    ['between two: the lower', { uid: 'a', priority: 4 }, 1, 20],
    ['above every class: the highest', { uid: 'a', priority: 9 }, 2, 5],
    ['a shorter own grace period wins', { uid: 'a', priority: 2, terminationGracePeriodSeconds: 3 }, 1, 3],
    ['an equal own grace period is the same', { uid: 'a', priority: 2, terminationGracePeriodSeconds: 20 }, 1, 20],
    ['a longer own grace period is cut to the class\'s', { uid: 'a', priority: 5, terminationGracePeriodSeconds: 30 }, 2, 5],
  ])('puts a pod %s', (_, pod, group, grace) => {
    const groups = groupByPriority(classes, [pod]);
    expect(groups.map((g) => g.pods.length)).toEqual(classes.map((_, i) => (i === group ? 1 : 0)));
    expect(groups[group]!.pods[0]).toEqual({ uid: 'a', gracePeriodSeconds: grace });
  });

  it('kills regular pods first, critical pods after, in the migrated configuration', () => {
    const groups = groupByPriority(migrateConfig(20, 10), [
      { uid: 'critical', priority: 2_000_001_000, terminationGracePeriodSeconds: 30 },
      { uid: 'regular', terminationGracePeriodSeconds: 30 },
      { uid: 'quick', priority: 1000, terminationGracePeriodSeconds: 2 },
    ]);
    expect(groups).toEqual([
      { priority: 0, gracePeriodSeconds: 10, pods: [{ uid: 'regular', gracePeriodSeconds: 10 }, { uid: 'quick', gracePeriodSeconds: 2 }] },
      { priority: CRITICAL, gracePeriodSeconds: 10, pods: [{ uid: 'critical', gracePeriodSeconds: 10 }] },
    ]);
  });

  it('has nothing to group without classes', () => {
    expect(groupByPriority([], [{ uid: 'a' }])).toEqual([]);
  });
});
