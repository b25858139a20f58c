/**
 * run.machineInfo: what the Go kubelet asks cAdvisor for at start-up (MachineInfo, VersionInfo and
 * the root filesystem), read straight from the host's files. Parsing is in
 * src/domain/node/machine-info-parsers.ts; this file only reads.
 *
 * Differences from cAdvisor:
 * - cores: `processor` entries of /proc/cpuinfo (cAdvisor counts sysfs topology; the two agree on
 *   the usual architectures); when cpuinfo has none, os.availableParallelism(), which honours the
 *   CPU affinity mask like Go's runtime.NumCPU. `numCoresSource` says which was used.
 * - filesystem: statfs of --root-dir, or of its nearest existing ancestor when it does not exist
 *   yet (the Go kubelet creates it later, in initializeModules); `statfsPath` names what was measured.
 * - no topology, hugepages, NUMA, disk map or cloud info: nothing in kubelet-ts uses them yet.
 */
import { readFile, statfs } from 'node:fs/promises';
import { availableParallelism, release } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { FilesystemInfo, MachineInfo } from '../../domain/node/host-types.js';
import { countCpuInfoProcessors, goArch, goOs, parseMemTotalBytes, parseOsReleasePrettyName } from '../../domain/node/machine-info-parsers.js';
import type { MachineInfoSource } from '../../ports/host.js';

export interface HostMachineInfoOptions {
  /** Prefix for every host file read (cAdvisor's /rootfs when not in the host namespace); default "/". */
  hostRoot?: string;
  kernelVersion?: () => string;
  arch?: string;
  platform?: string;
  availableParallelism?: () => number;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** The first of `paths` that can be read, trimmed (cAdvisor's getInfoFromFiles); "" when none. */
async function firstReadable(paths: string[]): Promise<string> {
  for (const path of paths) {
    const text = await readOptional(path);
    if (text !== null) return text.trim();
  }
  return '';
}

export class HostMachineInfo implements MachineInfoSource {
  private readonly root: string;
  private readonly kernelVersion: () => string;
  private readonly arch: string;
  private readonly platform: string;
  private readonly parallelism: () => number;

  constructor(opts: HostMachineInfoOptions = {}) {
    this.root = opts.hostRoot ?? '/';
    this.kernelVersion = opts.kernelVersion ?? release;
    this.arch = opts.arch ?? process.arch;
    this.platform = opts.platform ?? process.platform;
    this.parallelism = opts.availableParallelism ?? availableParallelism;
  }

  private host(path: string): string {
    return join(this.root, path);
  }

  async read(rootDir: string): Promise<MachineInfo> {
    const cpuinfo = await readOptional(this.host('/proc/cpuinfo'));
    const fromCpuinfo = cpuinfo === null ? 0 : countCpuInfoProcessors(cpuinfo);

    const meminfo = await readOptional(this.host('/proc/meminfo'));
    const memoryCapacityBytes = meminfo === null ? null : parseMemTotalBytes(meminfo);
    if (memoryCapacityBytes === null) {
      // cAdvisor fails MachineInfo here, and the Go kubelet with it.
      throw new KubeletError('KLT_ERR_HOST_IO', `failed to read memory capacity: no MemTotal in ${this.host('/proc/meminfo')}`);
    }

    const osRelease = (await readOptional(this.host('/etc/os-release'))) ?? (await readOptional(this.host('/usr/lib/os-release')));
    return {
      numCores: fromCpuinfo > 0 ? fromCpuinfo : this.parallelism(),
      numCoresSource: fromCpuinfo > 0 ? 'cpuinfo' : 'availableParallelism',
      memoryCapacityBytes,
      rootFilesystem: await this.filesystem(rootDir),
      machineId: await firstReadable([this.host('/etc/machine-id'), this.host('/var/lib/dbus/machine-id')]),
      systemUuid: await firstReadable([this.host('/sys/class/dmi/id/product_uuid')]),
      bootId: await firstReadable([this.host('/proc/sys/kernel/random/boot_id')]),
      kernelVersion: this.kernelVersion(),
      osImage: (osRelease === null ? null : parseOsReleasePrettyName(osRelease)) ?? 'Linux',
      operatingSystem: goOs(this.platform),
      architecture: goArch(this.arch),
      maxPids: await this.maxPids(),
    };
  }

  private async maxPids(): Promise<number | null> {
    const limits: number[] = [];
    for (const file of ['/proc/sys/kernel/pid_max', '/proc/sys/kernel/threads-max']) {
      const text = (await readOptional(this.host(file)))?.trim() ?? '';
      if (/^\d+$/.test(text)) limits.push(Number(text));
    }
    return limits.length === 0 ? null : Math.min(...limits);
  }

  /** statfs of `rootDir`, walking up to the nearest existing ancestor. */
  private async filesystem(rootDir: string): Promise<FilesystemInfo> {
    const requestedPath = resolve(rootDir);
    let path = requestedPath;
    for (;;) {
      try {
        const st = await statfs(path, { bigint: true });
        return {
          requestedPath,
          statfsPath: path,
          capacityBytes: Number(st.bsize * st.blocks),
          availableBytes: Number(st.bsize * st.bavail),
          inodes: Number(st.files),
          inodesFree: Number(st.ffree),
        };
      } catch (err) {
        const parent = dirname(path);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) {
          throw new KubeletError('KLT_ERR_HOST_IO', `failed to get filesystem info for ${JSON.stringify(requestedPath)}: ${(err as Error).message}`, { cause: err });
        }
        path = parent;
      }
    }
  }
}
