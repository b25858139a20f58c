import { describe, expect, it } from 'vitest';
import { anyLocalStorageLimit, chooseLocalStorageEviction, localStorageSubjects, localStorageViolation, type LocalStorageSubject } from '../../../src/domain/eviction/local-storage.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { PodStats } from '../../../src/domain/stats/summary-types.js';
import { Mi } from './fixtures.js';

const t = '2026-11-29T22:00:00Z';

function pod(name: string, spec: Partial<Pod['spec']>, extra: Partial<Pod['metadata']> = {}): Pod {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...extra }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}

function stats(name: string, usage: { volumes?: Record<string, number>; pod?: number; containers?: Record<string, { logs?: number; rootfs?: number }> }): PodStats {
  return {
    podRef: { name, namespace: 'ns', uid: `uid-${name}` },
    startTime: t,
    containers: Object.entries(usage.containers ?? {}).map(([c, u]) => ({
      name: c, startTime: t,
      ...(u.rootfs !== undefined ? { rootfs: { time: t, usedBytes: BigInt(u.rootfs) } } : {}),
      ...(u.logs !== undefined ? { logs: { time: t, usedBytes: BigInt(u.logs) } } : {}),
    })),
    volume: Object.entries(usage.volumes ?? {}).map(([v, used]) => ({ name: v, time: t, usedBytes: BigInt(used) })),
    ...(usage.pod !== undefined ? { 'ephemeral-storage': { time: t, usedBytes: BigInt(usage.pod) } } : {}),
  };
}

const limited = (limit: string, name = 'c') => ({ name, image: 'i', resources: { limits: { 'ephemeral-storage': limit } } });

describe('localStorageSubjects', () => {
  it('keeps only pods that set a positive emptyDir sizeLimit or an ephemeral-storage limit, and that the summary has', () => {
    const pods = [
      pod('plain', { volumes: [{ name: 'v', emptyDir: {} }] }),
      pod('zero', { volumes: [{ name: 'v', emptyDir: { sizeLimit: '0' } }] }),
      pod('sized', { volumes: [{ name: 'v', emptyDir: { sizeLimit: '5120Ki' } }, { name: 'w', emptyDir: { sizeLimit: '2M' } }] }),
      pod('limited', { containers: [limited('5Mi'), limited('1M', 'd')] }),
      pod('unmeasured', { containers: [limited('5Mi')] }),
    ];
    expect(anyLocalStorageLimit(pods.slice(0, 2))).toBe(false);
    expect(anyLocalStorageLimit(pods)).toBe(true);
    const subjects = localStorageSubjects(pods, ['plain', 'zero', 'sized', 'limited'].map((n) => stats(n, { volumes: { v: 3 }, pod: 7, containers: { c: { logs: 1, rootfs: 2 } } })));
    expect(subjects.map((s) => s.name)).toEqual(['sized', 'limited']);
    // Limits print canonical in their own format, as Go's Quantity.String.
    expect(subjects[0]).toMatchObject({ emptyDirLimits: [{ volume: 'v', bytes: 5 * Mi, text: '5Mi' }, { volume: 'w', bytes: 2e6, text: '2M' }], containerLimits: [] });
    expect(subjects[0]!.podLimit).toBeUndefined();
    // The pod's limit is the containers' sum, in the first one's format.
    expect(subjects[1]).toMatchObject({
      podLimit: { bytes: 5 * Mi + 1e6, text: String(5 * Mi + 1e6) },
      containerLimits: [{ container: 'c', bytes: 5 * Mi, text: '5Mi' }, { container: 'd', bytes: 1e6, text: '1M' }],
      usage: { volumes: { v: 3 }, podBytes: 7, containers: [{ name: 'c', logsBytes: 1, rootfsBytes: 2 }] },
    });
  });
});

describe('localStorageViolation', () => {
  const subject = (over: Partial<LocalStorageSubject['usage']>, limits: Partial<LocalStorageSubject> = {}): LocalStorageSubject => ({
    uid: 'u', namespace: 'ns', name: 'p', critical: false,
    emptyDirLimits: [{ volume: 'scratch', bytes: Mi, text: '1Mi' }],
    podLimit: { bytes: 5 * Mi, text: '5Mi' },
    containerLimits: [{ container: 'c', bytes: 5 * Mi, text: '5Mi' }],
    usage: { volumes: {}, podBytes: 0, containers: [{ name: 'c', logsBytes: 0, rootfsBytes: 0 }], ...over },
    ...limits,
  });

  it('checks the emptyDirs, then the pod, then each container, with Go\'s messages', () => {
    expect(localStorageViolation(subject({ volumes: { scratch: Mi } }), false)).toBeNull();
    expect(localStorageViolation(subject({ volumes: { scratch: Mi + 1 }, podBytes: 10 * Mi }), false)).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ');
    expect(localStorageViolation(subject({ podBytes: 5 * Mi + 1, containers: [{ name: 'c', logsBytes: 0, rootfsBytes: 6 * Mi }] }), false))
      .toBe('Pod ephemeral local storage usage exceeds the total limit of containers 5Mi. ');
    const container = subject({ containers: [{ name: 'c', logsBytes: Mi, rootfsBytes: 5 * Mi }] }, { podLimit: undefined });
    expect(localStorageViolation(container, false)).toBe('Container c exceeded its local ephemeral storage limit "5Mi". ');
    // With its own image file system the rootfs is not the node's: only the logs count.
    expect(localStorageViolation(container, true)).toBeNull();
  });

  it('evicts the first non-critical pod over a limit, with the immediate grace period and no DisruptionTarget', () => {
    const full = subject({ volumes: { scratch: 2 * Mi } });
    expect(chooseLocalStorageEviction([{ ...full, uid: 'crit', critical: true }, { ...full, uid: 'fine', usage: { ...full.usage, volumes: {} } }, full], false)).toEqual({
      uid: 'u', namespace: 'ns', name: 'p', gracePeriodSeconds: 1, message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ', annotations: {}, disruptionTarget: false,
    });
    expect(chooseLocalStorageEviction([{ ...full, critical: true }], false)).toBeNull();
  });
});
