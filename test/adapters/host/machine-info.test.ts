import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostMachineInfo } from '../../../src/adapters/host/machine-info.js';

describe('HostMachineInfo', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'klt-machine-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const put = async (path: string, text: string) => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  };
  const fakeHost = async () => {
    await put('/proc/cpuinfo', 'processor\t: 0\nmodel name\t: x\n\nprocessor\t: 1\nmodel name\t: x\n');
    await put('/proc/meminfo', 'MemTotal:        2048 kB\nMemFree:          100 kB\n');
    await put('/etc/machine-id', 'abcdef0123456789abcdef0123456789\n');
    await put('/proc/sys/kernel/random/boot_id', '6c0f6d5e-1b8c-4a4e-9f3e-5c1e1b2b3c4d\n');
    await put('/sys/class/dmi/id/product_uuid', 'EC2A0B8E-1234-5678-9ABC-DEF012345678\n');
    await put('/etc/os-release', 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n');
    await put('/proc/sys/kernel/pid_max', '4194304\n');
    await put('/proc/sys/kernel/threads-max', '192729\n');
  };
  const source = () => new HostMachineInfo({ hostRoot: root, kernelVersion: () => '6.1.0-test', arch: 'arm64', platform: 'linux', availableParallelism: () => 7 });

  it('reads cores, memory, ids and versions from the host files', async () => {
    await fakeHost();
    const info = await source().read(root);
    expect(info).toMatchObject({
      numCores: 2,
      numCoresSource: 'cpuinfo',
      memoryCapacityBytes: 2048 * 1024,
      machineId: 'abcdef0123456789abcdef0123456789',
      systemUuid: 'EC2A0B8E-1234-5678-9ABC-DEF012345678',
      bootId: '6c0f6d5e-1b8c-4a4e-9f3e-5c1e1b2b3c4d',
      kernelVersion: '6.1.0-test',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      operatingSystem: 'linux',
      architecture: 'arm64',
      // The smaller of pid_max and threads-max.
      maxPids: 192_729,
    });
  });

  it('falls back to availableParallelism, the dbus machine id, /usr/lib/os-release and empty ids', async () => {
    await put('/proc/meminfo', 'MemTotal:        1024 kB\n');
    await put('/var/lib/dbus/machine-id', 'from-dbus\n');
    await put('/usr/lib/os-release', 'PRETTY_NAME="Vendor OS"\n');
    const info = await source().read(root);
    expect(info).toMatchObject({ numCores: 7, numCoresSource: 'availableParallelism', machineId: 'from-dbus', systemUuid: '', bootId: '', osImage: 'Vendor OS', maxPids: null });
  });

  it('reports "Linux" as the OS image when there is no os-release', async () => {
    await put('/proc/meminfo', 'MemTotal:        1024 kB\n');
    expect((await source().read(root)).osImage).toBe('Linux');
  });

  it('fails with KLT_ERR_HOST_IO without MemTotal, as cAdvisor does', async () => {
    await put('/proc/cpuinfo', 'processor\t: 0\n');
    await expect(source().read(root)).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
  });

  it('measures the nearest existing ancestor when --root-dir does not exist yet', async () => {
    await fakeHost();
    const rootDir = join(root, 'var', 'lib', 'kubelet-not-yet');
    const fs = (await source().read(rootDir)).rootFilesystem;
    expect(fs.requestedPath).toBe(rootDir);
    expect(fs.statfsPath).toBe(root);
    expect(fs.capacityBytes).toBeGreaterThan(0);
    expect(fs.availableBytes).toBeLessThanOrEqual(fs.capacityBytes);
    expect(fs.inodesFree).toBeLessThanOrEqual(fs.inodes);
  });

  it('reads this machine with sane values', async () => {
    const info = await new HostMachineInfo().read(tmpdir());
    expect(info.numCores).toBeGreaterThanOrEqual(1);
    if (info.numCoresSource === 'availableParallelism') expect(info.numCores).toBe(availableParallelism());
    expect(info.memoryCapacityBytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(info.memoryCapacityBytes % 1024).toBe(0);
    expect(info.kernelVersion).toBe(release());
    expect(info.bootId).toMatch(/^[0-9a-f-]{36}$/);
    expect(info.rootFilesystem.statfsPath).toBe(tmpdir());
    expect(info.rootFilesystem.capacityBytes).toBeGreaterThan(0);
    expect(info.architecture).not.toBe('x64');
  });
});
