import { describe, expect, it } from 'vitest';
import { probeEvent } from '../../../src/domain/probe/probe-events.js';

const ref = { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'web', uid: 'u1', fieldPath: 'spec.containers{app}' };

describe('probeEvent', () => {
  it('words each attempt as Go\'s prober does', () => {
    expect(probeEvent(ref, 'liveness', { result: 'failure', output: 'HTTP probe failed with statuscode: 500' }))
      .toEqual({ object: ref, type: 'Warning', reason: 'Unhealthy', message: 'Liveness probe failed: HTTP probe failed with statuscode: 500' });
    expect(probeEvent(ref, 'startup', { result: 'unknown', output: 'container not running' })?.message).toBe('Startup probe errored: container not running');
    expect(probeEvent(ref, 'readiness', { result: 'success', warning: true, output: 'Probe terminated redirects' }))
      .toMatchObject({ type: 'Warning', reason: 'ProbeWarning', message: 'Readiness probe warning: Probe terminated redirects' });
    expect(probeEvent(ref, 'readiness', { result: 'success' })).toBeUndefined();
  });
});
