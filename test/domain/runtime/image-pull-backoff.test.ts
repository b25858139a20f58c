import { describe, expect, it } from 'vitest';
import { imagePullBackoffPolicy } from '../../../src/domain/runtime/backoff.js';
import { imagePullBackOffEnds, recordImagePullFailures } from '../../../src/domain/runtime/image-pull-backoff.js';
import type { SyncStepOutcome } from '../../../src/domain/pod/sync-outcome.js';

const pullFailed = (image: string, atMs: number): SyncStepOutcome =>
  ({ step: 'startContainer', target: 'app', ok: false, reason: 'ErrImagePull', pullFailure: { image, atMs } });

describe('image pull back-off', () => {
  it('starts at 10 s from the failure and doubles with each failure, per image', () => {
    const first = recordImagePullFailures({}, [pullFailed('a:1', 1_000)], imagePullBackoffPolicy);
    expect(imagePullBackOffEnds(first)).toEqual({ 'a:1': 11_000 });
    const second = recordImagePullFailures(first, [pullFailed('a:1', 12_000), pullFailed('b:1', 12_000)], imagePullBackoffPolicy);
    expect(imagePullBackOffEnds(second)).toEqual({ 'a:1': 32_000, 'b:1': 22_000 });
  });

  it('is unchanged by a sync without failed pulls (a refusal for the back-off counts nothing)', () => {
    const first = recordImagePullFailures({}, [pullFailed('a:1', 0)], imagePullBackoffPolicy);
    const refused: SyncStepOutcome = { step: 'startContainer', target: 'app', ok: false, reason: 'ImagePullBackOff' };
    expect(recordImagePullFailures(first, [refused, { step: 'startContainer', target: 'x', ok: true }], imagePullBackoffPolicy)).toBe(first);
  });

  it('starts over, and forgets other images, after 2 × max without a failure', () => {
    const policy = { initialMs: 10_000, maxMs: 300_000 };
    let b = recordImagePullFailures({}, [pullFailed('a:1', 0), pullFailed('b:1', 0)], policy);
    b = recordImagePullFailures(b, [pullFailed('a:1', 10_000)], policy);
    expect(imagePullBackOffEnds(b)['a:1']).toBe(30_000);
    b = recordImagePullFailures(b, [pullFailed('a:1', 10_000 + 600_001)], policy);
    expect(imagePullBackOffEnds(b)).toEqual({ 'a:1': 620_001 });
  });
});
