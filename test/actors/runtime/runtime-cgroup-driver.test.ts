import { describe, expect, it } from 'vitest';
import { askRuntimeCgroupDriver, RUNTIME_CONFIG_RETRY_MS } from '../../../src/actors/runtime/runtime-cgroup-driver.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { LinuxRuntimeConfiguration } from '../../../src/ports/cri.js';

function runtime(answers: (LinuxRuntimeConfiguration | null | KubeletError)[]) {
  const calls: number[] = [];
  return {
    calls,
    runtimeConfig: async () => {
      calls.push(calls.length);
      const a = answers.shift();
      if (a instanceof KubeletError) throw a;
      return a ?? null;
    },
  };
}

describe('askRuntimeCgroupDriver', () => {
  it("answers the runtime's driver, or no-linux-config when it leaves linux out", async () => {
    expect(await askRuntimeCgroupDriver(runtime([{ cgroup_driver: 'SYSTEMD' }]), async () => {})).toEqual({ cgroupDriver: 'SYSTEMD' });
    expect(await askRuntimeCgroupDriver(runtime([null]), async () => {})).toBe('no-linux-config');
  });

  it('answers unimplemented at once for UNIMPLEMENTED and for a client without the RPC', async () => {
    const r = runtime([new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', 'unknown method RuntimeConfig')]);
    expect(await askRuntimeCgroupDriver(r, async () => { throw new Error('must not wait'); })).toBe('unimplemented');
    expect(await askRuntimeCgroupDriver({}, async () => {})).toBe('unimplemented');
  });

  it('tries a failing runtime three times, two seconds apart, then fails start-up naming the RPC', async () => {
    const down = () => new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'connection refused');
    const sleeps: number[] = [];
    const late = runtime([down(), down(), { cgroup_driver: 'CGROUPFS' }]);
    expect(await askRuntimeCgroupDriver(late, async (ms) => { sleeps.push(ms); })).toEqual({ cgroupDriver: 'CGROUPFS' });
    expect(sleeps).toEqual([RUNTIME_CONFIG_RETRY_MS, RUNTIME_CONFIG_RETRY_MS]);
    const never = runtime([down(), down(), down(), { cgroup_driver: 'CGROUPFS' }]);
    await expect(askRuntimeCgroupDriver(never, async () => {})).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED', message: expect.stringContaining('RuntimeConfig from the container runtime failed: connection refused') });
    expect(never.calls).toHaveLength(3);
  });
});
