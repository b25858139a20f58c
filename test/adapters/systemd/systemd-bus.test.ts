/**
 * createSystemdBus against a real systemd 252 (../shared/lab/systemd) on its own system bus: slices
 * started with runc's properties and the Go kubelet's resources, read back with `systemctl show` and
 * in the cgroup files inside the lab; their properties changed; stopped; failures systemd gives
 * (a refused property, a job that ends "assert") as KLT_ERR_CGROUP naming the unit; the bus itself
 * restarted under the client.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystemdBus } from '../../../src/adapters/systemd/systemd-bus.js';
import { CPU_QUOTA_PERIOD_MIN_SYSTEMD, resourceProperties, sliceOf, sliceStartProperties, type UnitProperty } from '../../../src/domain/cgroups/systemd-units.js';
import type { SystemdUnits } from '../../../src/ports/systemd-units.js';
import { describeNeeding } from '../../support/real-parts.js';
import { startSystemdLab, systemdLabPart, type SystemdLab } from '../../support/systemd-lab.js';

const POD = ['kubepods', 'pod11111111-2222-3333-4444-555555555555'];
const POD_UNIT = 'kubepods-pod11111111_2222_3333_4444_555555555555.slice';
const SHOWN = ['LoadState', 'ActiveState', 'Transient', 'Description', 'Wants', 'DefaultDependencies', 'MemoryAccounting', 'CPUAccounting', 'BlockIOAccounting', 'TasksAccounting',
  'ControlGroup', 'MemoryLimit', 'CPUShares', 'CPUQuotaPeriodUSec', 'CPUQuotaPerSecUSec', 'TasksMax'];
const u64 = (name: string, value: bigint): UnitProperty => ({ name, signature: 't', value });

describeNeeding(systemdLabPart(), 'createSystemdBus against a real systemd', () => {
  let lab: SystemdLab;
  let bus: SystemdUnits;
  let version: number;
  const start = (components: string[]) => {
    const slice = sliceOf(components);
    return bus.startTransientUnit(slice.unit, sliceStartProperties(slice, 'v1'));
  };
  /** A cgroup file of a slice inside the lab, where systemd put it. */
  const cgroupFile = async (controller: string, expansion: string, file: string) => {
    const r = await lab.run(['cat', `/sys/fs/cgroup/${controller}${expansion}/${file}`]);
    return r.code === 0 ? r.stdout.trim() : `absent (${r.stderr.trim()})`;
  };

  beforeAll(async () => {
    lab = await startSystemdLab();
    bus = createSystemdBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: lab.busAddress }, uid: 0 });
  }, 180_000);
  afterAll(async () => {
    bus?.close();
    await lab?.down();
  }, 180_000);

  it("reads the manager's version number", async () => {
    version = await bus.version();
    expect(Number.isInteger(version)).toBe(true);
    expect(version).toBeGreaterThanOrEqual(CPU_QUOTA_PERIOD_MIN_SYSTEMD);
  });

  it("starts kubepods.slice and a Guaranteed pod's slice with runc's properties, then sets the Go kubelet's resources", async () => {
    await start(['kubepods']);
    await start(POD);
    await bus.setUnitProperties(POD_UNIT, resourceProperties({ memoryLimitBytes: 67_108_864, cpuShares: 256, cpuQuota: 25_000, cpuPeriod: 100_000, pidsLimit: 1024 }, 'v1', version));
    expect(await lab.show(POD_UNIT, SHOWN)).toEqual({
      LoadState: 'loaded',
      ActiveState: 'active',
      Transient: 'yes',
      Description: `libcontainer container ${POD_UNIT}`,
      Wants: 'kubepods.slice',
      DefaultDependencies: 'no',
      MemoryAccounting: 'yes',
      CPUAccounting: 'yes',
      BlockIOAccounting: 'yes',
      TasksAccounting: 'yes',
      ControlGroup: `/kubepods.slice/${POD_UNIT}`,
      MemoryLimit: '67108864',
      CPUShares: '256',
      CPUQuotaPeriodUSec: '100ms',
      CPUQuotaPerSecUSec: '250ms',
      TasksMax: '1024',
    });
    const expansion = sliceOf(POD).path;
    expect(await cgroupFile('cpu', expansion, 'cpu.shares')).toBe('256');
    expect(await cgroupFile('cpu', expansion, 'cpu.cfs_quota_us')).toBe('25000');
    expect(await cgroupFile('memory', expansion, 'memory.limit_in_bytes')).toBe('67108864');
    expect(await cgroupFile('pids', expansion, 'pids.max')).toBe('1024');
  });

  it('starts an existing slice again without an error, and keeps what it had', async () => {
    await expect(start(POD)).resolves.toBeUndefined();
    expect(await lab.show(POD_UNIT, ['ActiveState', 'CPUShares'])).toEqual({ ActiveState: 'active', CPUShares: '256' });
  });

  it("changes a live slice's properties, infinity included", async () => {
    await bus.setUnitProperties(POD_UNIT, [u64('CPUShares', 102n), u64('TasksMax', 2n ** 64n - 1n)]);
    expect(await lab.show(POD_UNIT, ['CPUShares', 'TasksMax', 'MemoryLimit'])).toEqual({ CPUShares: '102', TasksMax: 'infinity', MemoryLimit: '67108864' });
    expect(await cgroupFile('cpu', sliceOf(POD).path, 'cpu.shares')).toBe('102');
    expect(await cgroupFile('pids', sliceOf(POD).path, 'pids.max')).toBe('max');
  });

  it('stops a slice, its job waited for, and its cgroups go; stopping it again or a unit systemd never knew is no error', async () => {
    await bus.stopUnit(POD_UNIT);
    expect(await lab.units('kubepods-pod*')).toEqual([]);
    expect(await cgroupFile('cpu', sliceOf(POD).path, 'cpu.shares')).toMatch(/^absent/);
    await expect(bus.stopUnit(POD_UNIT)).resolves.toBeUndefined();
    await expect(bus.stopUnit('kts-never-started.slice')).resolves.toBeUndefined();
    expect(await lab.show('kubepods.slice', ['ActiveState'])).toEqual({ ActiveState: 'active' });
  });

  it("waits for each of several jobs at once by its own JobRemoved", async () => {
    const pods = Array.from({ length: 8 }, (_, i) => ['kubepods', 'besteffort', `pod${i}-0000`]);
    await start(['kubepods', 'besteffort']);
    await Promise.all(pods.map(start));
    expect(await lab.units('kubepods-besteffort-pod*')).toEqual(pods.map((p) => sliceOf(p).unit).sort());
    await Promise.all(pods.map((p) => bus.stopUnit(sliceOf(p).unit)));
    expect(await lab.units('kubepods-besteffort-pod*')).toEqual([]);
  });

  it('refuses a property systemd does not take, naming the unit, and leaves no unit behind', async () => {
    const bogus = [{ name: 'NoSuchProperty', signature: 'b', value: true }] as const satisfies readonly UnitProperty[];
    await expect(bus.startTransientUnit('kts-refused.slice', bogus)).rejects.toMatchObject({
      code: 'KLT_ERR_CGROUP',
      message: expect.stringMatching(/^failed to create systemd unit "kts-refused\.slice": org\.freedesktop\.DBus\.Error\.PropertyReadOnly: .*NoSuchProperty/),
    });
    await expect(bus.setUnitProperties('kubepods.slice', bogus)).rejects.toMatchObject({
      code: 'KLT_ERR_CGROUP',
      message: expect.stringMatching(/^failed to set properties of systemd unit "kubepods\.slice": .*NoSuchProperty/),
    });
    await expect(bus.startTransientUnit('kts_not_a_unit', [])).rejects.toMatchObject({
      code: 'KLT_ERR_CGROUP',
      message: expect.stringContaining('failed to create systemd unit "kts_not_a_unit": org.freedesktop.DBus.Error.InvalidArgs'),
    });
    expect(await lab.units('kts-refused*')).toEqual([]);
  });

  it('reports a job that ends other than "done", naming the unit, and resets the failed unit', async () => {
    // An assertion that cannot hold: the unit loads, and its start job ends "assert".
    const impossible = { name: 'Asserts', signature: 'a(sbbs)', value: [['AssertPathExists', false, false, '/kts-nonexistent']] };
    await expect(bus.startTransientUnit('kts-asserted.slice', [impossible as unknown as UnitProperty])).rejects.toMatchObject({
      code: 'KLT_ERR_CGROUP',
      message: 'failed to create systemd unit "kts-asserted.slice": the job ended "assert"',
    });
    expect(await lab.units('kts-asserted*')).toEqual([]);
  });

  it('connects again after close', async () => {
    bus.close();
    expect(await bus.version()).toBe(version);
    await start(['kubepods', 'burstable']);
    expect(await lab.show('kubepods-burstable.slice', ['ActiveState'])).toEqual({ ActiveState: 'active' });
  });

  it('works on after the bus daemon restarts under it', async () => {
    await lab.systemctl(['restart', 'dbus.service']);
    await bus.stopUnit('kubepods-burstable.slice');
    expect(await lab.units('kubepods-burstable*')).toEqual([]);
  });

  it('makes a call again on a new connection when the old one was dropped before the client noticed', async () => {
    // The restart run synchronously: the old socket's end is not seen before the next call writes to it.
    const restart = lab.inside(['systemctl', 'restart', 'dbus.service']);
    for (const call of [() => bus.version(), () => start(['kubepods', 'guaranteed-like'])]) {
      execFileSync(restart[0]!, restart.slice(1), { stdio: 'ignore', timeout: 60_000 });
      await expect(call()).resolves.not.toThrow();
    }
    expect(await lab.show('kubepods-guaranteed_like.slice', ['ActiveState'])).toEqual({ ActiveState: 'active' });
  });
});

describe('createSystemdBus with no bus to reach', () => {
  const bus = createSystemdBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/nonexistent/kts-system_bus_socket' }, uid: 0 });
  afterAll(() => bus.close());

  it('fails each call with KLT_ERR_CGROUP, naming the unit and the address', async () => {
    await expect(bus.version()).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringMatching(/^cannot read systemd's version: cannot connect to the D-Bus at unix:path=\/nonexistent\//) });
    await expect(bus.startTransientUnit('kubepods.slice', [])).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringMatching(/^failed to create systemd unit "kubepods\.slice": cannot connect to the D-Bus/) });
    await expect(bus.setUnitProperties('kubepods.slice', [])).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringMatching(/^failed to set properties of systemd unit "kubepods\.slice": cannot connect/) });
    await expect(bus.stopUnit('kubepods.slice')).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringMatching(/^failed to stop systemd unit "kubepods\.slice": cannot connect/) });
  });
});
