import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { actuatedForPod, amountsFromRuntime, desiredResourceAmounts } from '../../../src/domain/runtime/actuated-resources.js';
import { decodeActuatedPods, encodeActuatedPods } from '../../../src/domain/runtime/actuated-state-file.js';

const app: Container = { name: 'app', image: 'app:1', resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } } };
const proxy: Container = { name: 'proxy', image: 'proxy:1', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } };
const init: Container = { name: 'setup', image: 'setup:1' };
const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [app], initContainers: [init, proxy] } };
const ctx = { cpuCfsQuota: true, cpuCfsQuotaPeriodMicros: 100_000 };

describe('desiredResourceAmounts', () => {
  it('reads cpu in millicores and memory in bytes, 0 where unset', () => {
    expect(desiredResourceAmounts(pod, app)).toEqual({ cpuRequestMilli: 250, cpuLimitMilli: 500, memoryRequestBytes: 64 * 2 ** 20, memoryLimitBytes: 128 * 2 ** 20 });
    expect(desiredResourceAmounts(pod, proxy)).toEqual({ cpuRequestMilli: 100, cpuLimitMilli: 0, memoryRequestBytes: 0, memoryLimitBytes: 0 });
  });
});

describe('amountsFromRuntime', () => {
  const desired = desiredResourceAmounts(pod, app);

  it('takes the allocated amounts where the runtime\'s settings are those they produce', () => {
    const reported = { cpu_shares: '256', cpu_quota: '50000', cpu_period: '100000', memory_limit_in_bytes: String(128 * 2 ** 20) };
    expect(amountsFromRuntime(reported, desired, ctx)).toEqual(desired);
  });

  it('reads the amounts back from settings that differ, so the resize goes the right way', () => {
    const reported = { cpu_shares: '102', cpu_quota: '20000', cpu_period: '100000', memory_limit_in_bytes: String(256 * 2 ** 20) };
    expect(amountsFromRuntime(reported, desired, ctx)).toEqual({ cpuRequestMilli: 100, cpuLimitMilli: 200, memoryRequestBytes: desired.memoryRequestBytes, memoryLimitBytes: 256 * 2 ** 20 });
  });
});

describe('actuatedForPod', () => {
  it('answers records first, then what the runtime reports, for regular containers and sidecars only', () => {
    const record = { cpuRequestMilli: 1, cpuLimitMilli: 1, memoryRequestBytes: 1, memoryLimitBytes: 1 };
    const reported = { cpu_shares: '102', cpu_quota: '0', cpu_period: '100000', memory_limit_in_bytes: '0' };
    const out = actuatedForPod(pod, [{ name: 'app' }, { name: 'proxy', resources: reported }, { name: 'setup', resources: reported }], { app: record }, ctx);
    expect(out).toEqual({ app: record, proxy: desiredResourceAmounts(pod, proxy) });
    expect(actuatedForPod(pod, [{ name: 'app' }], undefined, ctx)).toEqual({});
  });
});

describe('actuated state file', () => {
  const pods = { u1: { app: desiredResourceAmounts(pod, app) }, u2: { web: { cpuRequestMilli: 0, cpuLimitMilli: 0, memoryRequestBytes: 0, memoryLimitBytes: 0 } } };

  it('round-trips', () => {
    expect(decodeActuatedPods(encodeActuatedPods(pods))).toEqual(pods);
  });

  it.each([
    ['text that is not JSON', 'nope', /not JSON/],
    ['a checksum that does not match', encodeActuatedPods(pods).replace('"cpuLimitMilli":500', '"cpuLimitMilli":600'), /checksum mismatch/],
    ['amounts that are not whole numbers', JSON.stringify({ entries: { u1: { app: { cpuRequestMilli: 'x' } } }, checksum: '' }), /container "app": not cpu and memory amounts/],
    ['another shape', JSON.stringify({ data: {} }), /not an actuated resources checkpoint/],
  ])('refuses %s', (_, text, message) => {
    expect(() => decodeActuatedPods(text)).toThrow(message);
  });
});
