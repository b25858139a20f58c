import { describe, expect, it } from 'vitest';
import { hasDedicatedImageFs, signalObservations } from '../../../src/domain/eviction/observations.js';
import type { Summary } from '../../../src/domain/stats/summary-types.js';

const t = '2026-11-24T09:00:00Z';

describe('signalObservations', () => {
  it('derives every signal from the node summary as makeSignalObservations does', () => {
    const summary: Summary = {
      node: {
        nodeName: 'n', startTime: t,
        memory: { time: t, availableBytes: 300n, workingSetBytes: 700n },
        fs: { time: t, availableBytes: 10n, capacityBytes: 100n, inodesFree: 5n, inodes: 50n },
        runtime: { imageFs: { time: t, availableBytes: 20n, capacityBytes: 200n, inodesFree: 6n, inodes: 60n } },
        rlimit: { time: t, maxpid: 4096, curproc: 96 },
      },
      pods: [],
    };
    expect(signalObservations(summary)).toEqual({
      'memory.available': { available: 300, capacity: 1000, time: t },
      'nodefs.available': { available: 10, capacity: 100, time: t },
      'nodefs.inodesFree': { available: 5, capacity: 50, time: t },
      'imagefs.available': { available: 20, capacity: 200, time: t },
      'imagefs.inodesFree': { available: 6, capacity: 60, time: t },
      'pid.available': { available: 4000, capacity: 4096, time: t },
    });
  });

  it('leaves out a signal whose readings are missing', () => {
    const summary: Summary = { node: { nodeName: 'n', startTime: t, memory: { time: t, workingSetBytes: 1n }, rlimit: { time: t, maxpid: 10 } }, pods: [] };
    expect(signalObservations(summary)).toEqual({});
  });
});

describe('hasDedicatedImageFs', () => {
  const fs = (capacityBytes: bigint) => ({ time: t, capacityBytes, availableBytes: 1n });
  it.each([
    ['the same capacity', fs(100n), fs(100n), false],
    ['another capacity', fs(100n), fs(200n), true],
    ['no image filesystem', fs(100n), undefined, false],
  ])('is decided by %s', (_name, nodeFs, imageFs, want) => {
    const summary: Summary = { node: { nodeName: 'n', startTime: t, fs: nodeFs, ...(imageFs ? { runtime: { imageFs } } : {}) }, pods: [] };
    expect(hasDedicatedImageFs(summary)).toBe(want);
  });
});
