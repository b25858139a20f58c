import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCgroupLayout, parseHierarchyMounts, parseV1ControllerMounts } from '../../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../../src/adapters/host/cgroupfs.js';
import type { CgroupManager } from '../../../src/ports/cgroups.js';
import { FakeCgroups } from '../../fakes/fake-cgroups.js';
import { cgroupsPart } from '../../support/real-parts.js';

const hostCgroupsWritable = () => cgroupsPart().missing === '';

const ROOT = `/kubelet-ts-test-${process.pid}`;
const managers: [string, () => Promise<CgroupManager>][] = [['FakeCgroups', async () => new FakeCgroups()]];
if (hostCgroupsWritable()) managers.push(['Cgroupfs on this host', async () => new Cgroupfs(await detectCgroupLayout())]);

describe.each(managers)('CgroupManager contract: %s', (_name, make) => {
  let cgroups: CgroupManager;
  beforeAll(async () => {
    cgroups = await make();
  });
  afterAll(async () => {
    await cgroups.destroy(ROOT);
  });

  it('creates a cgroup with its parents, sets it and reads the settings back', async () => {
    await cgroups.create(`${ROOT}/kubepods/podabc`, { cpuShares: 512, cpuPeriod: 100_000, cpuQuota: 50_000, memoryLimitBytes: 64 * 1024 * 1024 });
    expect(await cgroups.exists(`${ROOT}/kubepods/podabc`)).toBe(true);
    expect(await cgroups.exists(`${ROOT}/kubepods`)).toBe(true);
    expect(await cgroups.read(`${ROOT}/kubepods/podabc`)).toMatchObject({ cpuShares: 512, cpuPeriod: 100_000, cpuQuota: 50_000, memoryLimitBytes: 64 * 1024 * 1024 });
    await cgroups.update(`${ROOT}/kubepods/podabc`, { cpuShares: 1024 });
    expect((await cgroups.read(`${ROOT}/kubepods/podabc`)).cpuShares).toBe(1024);
  });

  it('lists child cgroups and validates an existing one', async () => {
    await cgroups.create(`${ROOT}/kubepods/burstable`, {});
    expect(await cgroups.children(`${ROOT}/kubepods`)).toEqual(['burstable', 'podabc']);
    expect(await cgroups.children(`${ROOT}/nothing`)).toEqual([]);
    await expect(cgroups.validate(`${ROOT}/kubepods`)).resolves.toBeUndefined();
  });

  it('refuses to validate a missing cgroup with KLT_ERR_CGROUP', async () => {
    await expect(cgroups.validate(`${ROOT}/missing`)).rejects.toMatchObject({ code: 'KLT_ERR_CGROUP' });
  });

  it('destroys a cgroup with its children, and a missing one quietly', async () => {
    await cgroups.destroy(`${ROOT}/kubepods`);
    expect(await cgroups.exists(`${ROOT}/kubepods`)).toBe(false);
    expect(await cgroups.exists(`${ROOT}/kubepods/podabc`)).toBe(false);
    await expect(cgroups.destroy(`${ROOT}/kubepods`)).resolves.toBeUndefined();
  });
});

describe.runIf(hostCgroupsWritable())('Cgroupfs on this host', () => {
  const root = `${ROOT}-kill`;
  afterAll(async () => {
    await new Cgroupfs(await detectCgroupLayout()).destroy(root);
  });

  it('kills what still runs in a cgroup before removing it', async () => {
    const layout = await detectCgroupLayout();
    const cgroups = new Cgroupfs(layout);
    await cgroups.create(`${root}/podx`, {});
    // A process that would still run when the cgroup is removed: the test checks that it is killed.
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
    const procs = layout.version === 'v2' ? join(layout.unifiedRoot, root, 'podx', 'cgroup.procs') : join(layout.controllers.get('memory')!, root, 'podx', 'cgroup.procs');
    writeFileSync(procs, String(child.pid));
    expect(readFileSync(procs, 'utf8')).toContain(String(child.pid));
    await cgroups.destroy(root);
    expect(await exited).toBe('SIGKILL');
    expect(await cgroups.exists(root)).toBe(false);
  });
});

describe('detectCgroupLayout', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kts-cgroup-layout-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds v1 controller mounts in mountinfo, co-mounted ones sharing a mount point, and every hierarchy', async () => {
    const mountinfo = [
      '30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 rw,nsdelegate',
      '31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:11 - cgroup cgroup rw,cpu,cpuacct',
      '32 25 0:28 / /sys/fs/cgroup/memory rw,nosuid shared:12 - cgroup cgroup rw,memory',
      '33 25 0:29 / /sys/fs/cgroup/systemd rw,nosuid shared:13 - cgroup cgroup rw,xattr,name=systemd',
      '34 25 0:28 /nested /mnt/memory rw - cgroup cgroup rw,memory',
    ].join('\n');
    expect([...parseV1ControllerMounts(mountinfo)]).toEqual([
      ['cpu', '/sys/fs/cgroup/cpu,cpuacct'], ['cpuacct', '/sys/fs/cgroup/cpu,cpuacct'], ['memory', '/sys/fs/cgroup/memory'],
    ]);
    expect(parseHierarchyMounts(mountinfo)).toEqual(['/sys/fs/cgroup/unified', '/sys/fs/cgroup/cpu,cpuacct', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/systemd']);
  });

  it('takes a mount root with cgroup.controllers for v2, and writes v2 files there', async () => {
    writeFileSync(join(dir, 'cgroup.controllers'), 'cpu memory pids\n');
    const layout = await detectCgroupLayout(dir);
    expect(layout.version).toBe('v2');
    const cgroups = new Cgroupfs(layout);
    await cgroups.create('/kubepods/podabc', { cpuShares: 1024, cpuQuota: 50_000, cpuPeriod: 100_000, memoryLimitBytes: -1 });
    expect(readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu +memory +pids');
    expect(readFileSync(join(dir, 'kubepods/podabc/cpu.weight'), 'utf8')).toBe('39');
    expect(readFileSync(join(dir, 'kubepods/podabc/cpu.max'), 'utf8')).toBe('50000 100000');
    expect(readFileSync(join(dir, 'kubepods/podabc/memory.max'), 'utf8')).toBe('max');
    mkdirSync(join(dir, 'kubepods/podabc/ctr'));
    expect(await cgroups.children('/kubepods/podabc')).toEqual(['ctr']);
  });
});
