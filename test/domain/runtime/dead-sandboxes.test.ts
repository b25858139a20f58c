import { describe, expect, it } from 'vitest';
import { sandboxesKept, sandboxesToRemove, type SandboxCandidate } from '../../../src/domain/runtime/dead-sandboxes.js';

const s = (id: string, ready: boolean, createdAtNs: string): SandboxCandidate => ({ id, ready, createdAtNs });

// Listed out of creation order on purpose: the choice goes by creation time.
const sandboxes = [
  s('s2', false, '2000000000000000002'),
  s('s0', false, '2000000000000000000'),
  s('s3', false, '2000000000000000003'),
  s('s1', false, '2000000000000000001'),
];

describe('sandboxesToRemove', () => {
  it('removes every stopped sandbox without containers when it keeps none, oldest first', () => {
    expect(sandboxesToRemove(sandboxes, new Set(), 0)).toEqual(['s0', 's1', 's2', 's3']);
  });

  it('keeps the newest `keep` sandboxes, whatever their state', () => {
    expect(sandboxesToRemove(sandboxes, new Set(), 1)).toEqual(['s0', 's1', 's2']);
    const newestReady = [...sandboxes, s('s4', true, '2000000000000000004')];
    expect(sandboxesToRemove(newestReady, new Set(), 1)).toEqual(['s0', 's1', 's2', 's3']);
  });

  it('never removes a ready sandbox nor one a container still names', () => {
    const mixed = [s('ready', true, '1'), s('held', false, '2'), s('free', false, '3')];
    expect(sandboxesToRemove(mixed, new Set(['held']), 0)).toEqual(['free']);
  });

  it('removes nothing when the pod has no more sandboxes than it keeps', () => {
    expect(sandboxesToRemove([s('only', false, '1')], new Set(), 1)).toEqual([]);
    expect(sandboxesToRemove([], new Set(), 0)).toEqual([]);
  });
});

describe('sandboxesKept', () => {
  it('keeps none of a pod whose content is to be removed and the latest of any other', () => {
    expect(sandboxesKept(true)).toBe(0);
    expect(sandboxesKept(false)).toBe(1);
  });
});
