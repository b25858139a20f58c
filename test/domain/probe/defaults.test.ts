import { describe, expect, it } from 'vitest';
import { containerProbe, initialProbeResult, probeTiming } from '../../../src/domain/probe/defaults.js';

describe('probeTiming', () => {
  it('applies the API defaults to an empty probe', () => {
    expect(probeTiming({})).toEqual({
      initialDelaySeconds: 0,
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  it('treats zero as unset and keeps values that are given', () => {
    expect(probeTiming({ timeoutSeconds: 0, periodSeconds: 5, successThreshold: 2, failureThreshold: 0, initialDelaySeconds: 7 }))
      .toEqual({ initialDelaySeconds: 7, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 2, failureThreshold: 3 });
  });
});

describe('initialProbeResult', () => {
  it.each([
    ['readiness', 'failure'],
    ['liveness', 'success'],
    ['startup', 'unknown'],
  ] as const)('starts %s as %s', (type, result) => {
    expect(initialProbeResult(type)).toBe(result);
  });
});

describe('containerProbe', () => {
  it('picks the probe of the given type', () => {
    const container = { name: 'c', image: 'i', livenessProbe: { periodSeconds: 1 }, startupProbe: { periodSeconds: 2 } };
    expect(containerProbe(container, 'liveness')).toEqual({ periodSeconds: 1 });
    expect(containerProbe(container, 'startup')).toEqual({ periodSeconds: 2 });
    expect(containerProbe(container, 'readiness')).toBeUndefined();
  });
});
