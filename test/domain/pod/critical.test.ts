import { describe, expect, it } from 'vitest';
import { isCriticalPod } from '../../../src/domain/pod/critical.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (extra: { annotations?: Record<string, string>; priority?: number }): Pod => ({
  metadata: { name: 'p', uid: 'u', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  spec: { containers: [], ...(extra.priority !== undefined ? { priority: extra.priority } : {}) },
});

describe('isCriticalPod', () => {
  it.each([
    ['a static pod', pod({ annotations: { 'kubernetes.io/config.source': 'file' } }), true],
    ['a mirror pod', pod({ annotations: { 'kubernetes.io/config.mirror': 'hash' } }), true],
    ['a system-cluster-critical pod', pod({ priority: 2_000_000_000 }), true],
    ['an API pod of priority 1000', pod({ priority: 1000 }), false],
    ['an API pod without priority', pod({ annotations: { 'kubernetes.io/config.source': 'api' } }), false],
  ])('is %s critical: %s', (_name, p, want) => {
    expect(isCriticalPod(p)).toBe(want);
  });
});
