/**
 * The systemd lab's harness on the real lab: it comes up with systemd running on its own bus, a
 * command runs inside its namespaces (PID 1 there is systemd), a slice made over its bus shows in
 * `systemctl show`, and down leaves nothing.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding } from './real-parts.js';
import { startSystemdLab, systemdLabPart, type SystemdLab } from './systemd-lab.js';

describeNeeding(systemdLabPart(), 'the systemd lab harness', () => {
  let lab: SystemdLab | undefined;
  beforeAll(async () => {
    // without SHELL, as CI's runner starts the suite
    const { SHELL: _shell, ...env } = process.env;
    lab = await startSystemdLab(env);
  }, 120_000);
  afterAll(async () => {
    await lab?.down();
  }, 120_000);

  it('runs commands inside, where systemd is PID 1 and answers on its bus', async () => {
    const comm = await lab!.run(['cat', '/proc/1/comm']);
    expect(comm.stdout.trim()).toBe('systemd');
    expect((await lab!.show('-.slice', ['ActiveState'])).ActiveState).toBe('active');
    await lab!.run(['busctl', 'call', 'org.freedesktop.systemd1', '/org/freedesktop/systemd1', 'org.freedesktop.systemd1.Manager', 'StartTransientUnit',
      'ssa(sv)a(sa(sv))', 'kts-harness.slice', 'replace', '1', 'CPUShares', 't', '512', '0']);
    expect(await lab!.show('kts-harness.slice', ['ActiveState', 'CPUShares'])).toEqual({ ActiveState: 'active', CPUShares: '512' });
    expect(await lab!.units('kts-harness*')).toEqual(['kts-harness.slice']);
  }, 60_000);

  it('goes down leaving no lab directory', async () => {
    const dir = lab!.dir;
    await lab!.down();
    lab = undefined;
    expect(existsSync(dir)).toBe(false);
  }, 120_000);
});
