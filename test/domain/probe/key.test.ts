import { describe, expect, it } from 'vitest';
import { PROBE_TYPES, probeActorId } from '../../../src/domain/probe/key.js';

describe('probeActorId', () => {
  it('names the pod, the container and the probe type', () => {
    expect(probeActorId('9f2c', 'web', 'readiness')).toBe('probe:9f2c:web:readiness');
  });

  it('gives each probe type of a container its own id', () => {
    expect(new Set(PROBE_TYPES.map((t) => probeActorId('u', 'c', t))).size).toBe(3);
  });
});
