import { describe, expect, it } from 'vitest';
import { decideCgroupDriver } from '../../../src/domain/runtime/cgroup-driver-agreement.js';

describe('decideCgroupDriver (KubeletCgroupDriverFromCRI)', () => {
  it('keeps the configured driver when the runtime does not know RuntimeConfig (containerd 1.6) or says nothing for Linux', () => {
    expect(decideCgroupDriver('systemd', 'unimplemented')).toEqual({ cgroupDriver: 'systemd', from: 'configuration' });
    expect(decideCgroupDriver('cgroupfs', 'no-linux-config')).toEqual({ cgroupDriver: 'cgroupfs', from: 'configuration' });
  });

  it("takes the runtime's word when it agrees", () => {
    expect(decideCgroupDriver('systemd', { cgroupDriver: 'SYSTEMD' })).toEqual({ cgroupDriver: 'systemd', from: 'runtime' });
    expect(decideCgroupDriver('cgroupfs', { cgroupDriver: 'CGROUPFS' })).toEqual({ cgroupDriver: 'cgroupfs', from: 'runtime' });
  });

  it('refuses a disagreement, naming both drivers', () => {
    const refusal = decideCgroupDriver('systemd', { cgroupDriver: 'CGROUPFS' });
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toMatch(/runtime uses the "cgroupfs" cgroup driver and the kubelet is configured with cgroupDriver \(--cgroup-driver\) "systemd"/);
    expect((decideCgroupDriver('cgroupfs', { cgroupDriver: 'SYSTEMD' }) as Error).message).toContain('set cgroupDriver to "systemd"');
  });

  it('refuses a driver it does not know, as Go', () => {
    expect((decideCgroupDriver('cgroupfs', { cgroupDriver: '7' }) as Error).message).toBe('runtime returned an unknown cgroup driver "7"');
  });
});
