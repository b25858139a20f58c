import { describe, expect, it } from 'vitest';
import { evictionManagerInput } from '../../../src/actors/phases/eviction-input.js';
import { flagOnlyDefaultConfiguration } from '../../../src/domain/config/defaults.js';

const defaults = () => flagOnlyDefaultConfiguration({});

describe('evictionManagerInput', () => {
  it('takes Go default hard thresholds, the 5m transition period and the max pod grace period', () => {
    const input = evictionManagerInput(defaults(), 'n1');
    expect(input?.thresholds.map((t) => t.signal).sort()).toEqual(['imagefs.available', 'imagefs.inodesFree', 'memory.available', 'nodefs.available', 'nodefs.inodesFree']);
    expect(input).toMatchObject({ nodeName: 'n1', pressureTransitionPeriodMs: 300_000, maxPodGracePeriodSeconds: 0 });
  });

  it('starts no eviction manager without thresholds unless it isolates local storage', () => {
    expect(evictionManagerInput({ ...defaults(), evictionHard: {}, localStorageCapacityIsolation: false }, 'n1')).toBeUndefined();
    expect(evictionManagerInput({ ...defaults(), evictionHard: {} }, 'n1')).toMatchObject({ thresholds: [], localStorageCapacityIsolation: true });
  });

  it('stops start-up on a signal Go does not know', () => {
    expect(() => evictionManagerInput({ ...defaults(), evictionHard: { 'cpu.available': '1' } }, 'n1')).toThrow(expect.objectContaining({ code: 'KLT_ERR_CONFIG_INVALID' }));
  });
});
