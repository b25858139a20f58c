import { describe, expect, it } from 'vitest';
import { REDACTED } from '../../../src/domain/journal/redact.js';
import { redactEnvValues } from '../../../src/domain/journal/redact-env-values.js';

describe('redactEnvValues', () => {
  it('hides every literal env value, wherever the env list sits, and keeps names and references', () => {
    const spec = {
      initContainers: [{ name: 'i', env: [{ name: 'A', value: 'a-secret' }] }],
      containers: [{ name: 'c', env: [{ name: 'B', value: 'b-secret' }, { name: 'C', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
    };
    const out = redactEnvValues({ payload: { pods: [{ metadata: { name: 'p' }, spec }] } });
    expect(JSON.stringify(out)).not.toMatch(/a-secret|b-secret/);
    expect(out.payload.pods[0]!.spec.containers[0]!.env).toEqual([{ name: 'B', value: REDACTED }, { name: 'C', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]);
    expect(spec.containers[0]!.env[0]!.value).toBe('b-secret');
  });

  it('hands on a record without env values as the very object', () => {
    const rec = { seq: 1, payload: { pod: { spec: { containers: [{ name: 'c', env: [{ name: 'X', valueFrom: {} }] }] } } } };
    expect(redactEnvValues(rec)).toBe(rec);
  });
});
