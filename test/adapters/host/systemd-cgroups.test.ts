import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CgroupLayout } from '../../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../../src/adapters/host/cgroupfs.js';
import { SystemdCgroups } from '../../../src/adapters/host/systemd-cgroups.js';
import { sliceOf, sliceStartProperties } from '../../../src/domain/cgroups/systemd-units.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { FakeSystemdUnits } from '../../fakes/fake-systemd-units.js';

const GUARANTEED = '/kubepods/pod11111111-2222-3333-4444-555555555555';
const GUARANTEED_SLICE = 'kubepods-pod11111111_2222_3333_4444_555555555555.slice';
const GUARANTEED_DIR = `/kubepods.slice/${GUARANTEED_SLICE}`;
const GUARANTEED_CONFIG = { memoryLimitBytes: 67_108_864, cpuShares: 256, cpuQuota: 25_000, cpuPeriod: 100_000, pidsLimit: 1024 };

/** A v1 host's hierarchies as temporary directories: cpu,cpuacct co-mounted, cpuset, memory, pids and name=systemd. */
function v1Layout(root: string): CgroupLayout {
  const mounts = { cpu: 'cpu,cpuacct', cpuacct: 'cpu,cpuacct', cpuset: 'cpuset', memory: 'memory', pids: 'pids' };
  const controllers = new Map(Object.entries(mounts).map(([c, dir]) => [c, join(root, dir)]));
  const hierarchies = [...new Set([...controllers.values()]), join(root, 'systemd')];
  for (const dir of hierarchies) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, 'cpuset', 'cpuset.cpus'), '0-1');
  writeFileSync(join(root, 'cpuset', 'cpuset.mems'), '0');
  return { version: 'v1', unifiedRoot: join(root, 'unified'), controllers, hierarchies };
}

describe('SystemdCgroups (v1) over a fake systemd and the cgroup files of temporary hierarchies', () => {
  let root: string;
  let layout: CgroupLayout;
  let units: FakeSystemdUnits;
  let cgroups: SystemdCgroups;
  /** The directory of a slice's expansion in every hierarchy. */
  const dirsOf = (expansion: string) => layout.hierarchies.map((h) => join(h, expansion));
  const file = (controller: string, expansion: string, name: string) => readFileSync(join(layout.controllers.get(controller)!, expansion, name), 'utf8');

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kts-systemd-cgroups-'));
    layout = v1Layout(root);
    units = new FakeSystemdUnits();
    // systemd removes a stopped slice's cgroup directories itself.
    units.onCall = async (call) => {
      if (call.op !== 'stop') return;
      const expansion = sliceOf(call.unit.replace(/\.slice$/, '').split('-').map((c) => c.replace(/_/g, '-'))).path;
      for (const dir of dirsOf(expansion)) await rm(dir, { recursive: true, force: true });
    };
    cgroups = new SystemdCgroups(new Cgroupfs(layout), units);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates: the unit started first, then its directory in every hierarchy, then its properties, then the files', async () => {
    const seen: string[] = [];
    const previous = units.onCall;
    units.onCall = async (call) => {
      const made = dirsOf(GUARANTEED_DIR).filter((d) => existsSync(d)).length;
      const shares = existsSync(join(layout.controllers.get('cpu')!, GUARANTEED_DIR, 'cpu.shares'));
      seen.push(`${call.op}: ${made} of ${layout.hierarchies.length} dirs, cpu.shares ${shares ? 'written' : 'absent'}`);
      await previous?.(call);
    };
    await cgroups.create('/kubepods', {});
    seen.length = 0;
    await cgroups.create(GUARANTEED, GUARANTEED_CONFIG);

    expect(seen).toEqual(['start: 0 of 5 dirs, cpu.shares absent', 'set: 5 of 5 dirs, cpu.shares absent']);
    expect(units.log.slice(-2)).toEqual([`start ${GUARANTEED_SLICE}`, `set ${GUARANTEED_SLICE}`]);
    const [start, set] = units.calls.slice(-2);
    expect(start).toEqual({ op: 'start', unit: GUARANTEED_SLICE, properties: sliceStartProperties(sliceOf(['kubepods', 'pod11111111-2222-3333-4444-555555555555']), 'v1') });
    expect(set).toMatchObject({ op: 'set', unit: GUARANTEED_SLICE });
    expect(set && 'properties' in set ? set.properties : undefined).toEqual([
      { name: 'MemoryLimit', signature: 't', value: 67_108_864n },
      { name: 'CPUShares', signature: 't', value: 256n },
      { name: 'CPUQuotaPeriodUSec', signature: 't', value: 100_000n },
      { name: 'CPUQuotaPerSecUSec', signature: 't', value: 250_000n },
      { name: 'TasksMax', signature: 't', value: 1024n },
    ]);
    expect(file('cpu', GUARANTEED_DIR, 'cpu.shares')).toBe('256');
    expect(file('cpu', GUARANTEED_DIR, 'cpu.cfs_quota_us')).toBe('25000');
    expect(file('memory', GUARANTEED_DIR, 'memory.limit_in_bytes')).toBe('67108864');
    expect(file('pids', GUARANTEED_DIR, 'pids.max')).toBe('1024');
    // runc's v1 join: the new cpuset gets its parent's cpus and mems.
    expect(file('cpuset', GUARANTEED_DIR, 'cpuset.cpus')).toBe('0-1');
    expect(file('cpuset', GUARANTEED_DIR, 'cpuset.mems')).toBe('0');
  });

  it("asks systemd's version once, before the first properties, and asks again after a failure", async () => {
    units.failNext = { op: 'version', error: new KubeletError('KLT_ERR_CGROUP', 'no systemd') };
    await expect(cgroups.create('/kubepods', { cpuShares: 2048 })).rejects.toThrow('no systemd');
    expect(units.log).toEqual(['start kubepods.slice', 'version']);
    await cgroups.update('/kubepods', { cpuShares: 2048 });
    await cgroups.create('/kubepods/burstable', {});
    expect(units.log).toEqual(['start kubepods.slice', 'version', 'version', 'set kubepods.slice', 'start kubepods-burstable.slice', 'set kubepods-burstable.slice']);
  });

  it('updates: the properties set, then the files, and reads them back', async () => {
    await cgroups.create('/kubepods', {});
    await cgroups.create('/kubepods/burstable', {});
    expect(units.units.get('kubepods-burstable.slice')?.get('Wants')).toEqual(['kubepods.slice']);
    await cgroups.update('/kubepods/burstable', { cpuShares: 102 });
    expect(units.calls.at(-1)).toEqual({ op: 'set', unit: 'kubepods-burstable.slice', properties: [{ name: 'CPUShares', signature: 't', value: 102n }] });
    expect(file('cpu', '/kubepods.slice/kubepods-burstable.slice', 'cpu.shares')).toBe('102');
    expect(await cgroups.read('/kubepods/burstable')).toMatchObject({ cpuShares: 102 });
  });

  it('answers exists and validate at the expansion, and literalName with it', async () => {
    expect(cgroups.literalName('/')).toBe('/');
    expect(cgroups.literalName('/kubepods/burstable/pod1234-ab')).toBe('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_ab.slice');
    expect(await cgroups.exists('/kubepods')).toBe(false);
    await expect(cgroups.validate('/kubepods')).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP' });
    await cgroups.create('/kubepods', {});
    expect(await cgroups.exists('/kubepods')).toBe(true);
    await expect(cgroups.validate('/kubepods')).resolves.toBeUndefined();
  });

  it("lists children by their last component with '-' restored, skipping what is not a slice", async () => {
    await cgroups.create('/kubepods', {});
    await cgroups.create('/kubepods/burstable', {});
    await cgroups.create('/kubepods/burstable/pod1234-ab', {});
    await cgroups.create('/kubepods/burstable/podffff', {});
    const burstable = join(layout.controllers.get('memory')!, '/kubepods.slice/kubepods-burstable.slice');
    mkdirSync(join(burstable, 'cri-containerd-0123abcd.scope'));
    mkdirSync(join(burstable, 'not-a-unit'));
    writeFileSync(join(burstable, 'stray.slice'), '');
    expect(await cgroups.children('/kubepods/burstable')).toEqual(['pod1234-ab', 'podffff']);
    expect(await cgroups.children('/kubepods')).toEqual(['burstable']);
    expect(await cgroups.children('/kubepods/besteffort')).toEqual([]);
  });

  it("destroys: the unit stopped and every hierarchy's directory gone", async () => {
    await cgroups.create('/kubepods', {});
    await cgroups.create('/kubepods/burstable', {});
    await cgroups.create('/kubepods/burstable/pod1234-ab', { cpuShares: 102 });
    const expansion = cgroups.literalName('/kubepods/burstable/pod1234-ab');
    await cgroups.destroy('/kubepods/burstable/pod1234-ab');
    expect(units.log.at(-1)).toBe('stop kubepods-burstable-pod1234_ab.slice');
    expect(dirsOf(expansion).filter((d) => existsSync(d))).toEqual([]);
    expect(await cgroups.exists('/kubepods/burstable')).toBe(true);
    expect(units.units.has('kubepods-burstable-pod1234_ab.slice')).toBe(false);
  });

  it('surfaces a failed start with the unit named, and makes nothing', async () => {
    const error = new KubeletError('KLT_ERR_CGROUP', 'failed to create systemd unit "kubepods.slice": the job ended "failed"');
    units.failNext = { op: 'start', error };
    await expect(cgroups.create('/kubepods', { cpuShares: 2048 })).rejects.toBe(error);
    expect(units.log).toEqual(['start kubepods.slice']);
    expect(dirsOf('/kubepods.slice').filter((d) => existsSync(d))).toEqual([]);
  });

  it('refuses a cgroup that cannot be named as a slice with KLT_ERR_CGROUP, before any call', async () => {
    for (const bad of ['/kubepods//pod1', '/kubepods/']) {
      await expect(cgroups.create(bad, {})).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP', message: expect.stringContaining(`cgroup "${bad}" cannot be named as a systemd slice`) });
    }
    expect(units.calls).toEqual([]);
  });

  it('closes the bus on close', () => {
    cgroups.close();
    expect(units.closed).toBe(true);
  });
});

describe('SystemdCgroups (v2)', () => {
  let root: string;
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('starts with IOAccounting, sets CPUWeight and MemoryMax, and writes the v2 files', async () => {
    root = await mkdtemp(join(tmpdir(), 'kts-systemd-cgroups-v2-'));
    const units = new FakeSystemdUnits();
    const cgroups = new SystemdCgroups(new Cgroupfs({ version: 'v2', unifiedRoot: root, controllers: new Map(), hierarchies: [root] }), units);
    await cgroups.create('/kubepods', {});
    await cgroups.create('/kubepods/burstable', { cpuShares: 1024, memoryLimitBytes: -1 });
    expect(units.units.get('kubepods-burstable.slice')?.has('IOAccounting')).toBe(true);
    expect(units.calls.at(-1)).toEqual({
      op: 'set',
      unit: 'kubepods-burstable.slice',
      properties: [
        { name: 'MemoryMax', signature: 't', value: 2n ** 64n - 1n },
        { name: 'CPUWeight', signature: 't', value: 39n },
      ],
    });
    expect(readFileSync(join(root, 'kubepods.slice/kubepods-burstable.slice/cpu.weight'), 'utf8')).toBe('39');
    expect(readFileSync(join(root, 'kubepods.slice/kubepods-burstable.slice/memory.max'), 'utf8')).toBe('max');
  });

  it('removes the directories a stopped unit left behind', async () => {
    root = await mkdtemp(join(tmpdir(), 'kts-systemd-cgroups-v2-'));
    const units = new FakeSystemdUnits();
    const cgroups = new SystemdCgroups(new Cgroupfs({ version: 'v2', unifiedRoot: root, controllers: new Map(), hierarchies: [root] }), units);
    await cgroups.create('/kubepods', {});
    await cgroups.create('/kubepods/besteffort', {});
    await cgroups.destroy('/kubepods');
    expect(units.log.at(-1)).toBe('stop kubepods.slice');
    expect(existsSync(join(root, 'kubepods.slice'))).toBe(false);
  });
});
