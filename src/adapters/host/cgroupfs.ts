/**
 * The cgroupfs cgroup manager (Go's cgroupManagerImpl with libcontainer's fs/fs2 managers) over a
 * CgroupLayout: plain mkdir, file writes and rmdir under /sys/fs/cgroup.
 *
 * - v1: a cgroup is one directory per hierarchy; it is created in every mounted one, the named
 *   (name=systemd) and hybrid unified ones too, where runc also puts containers; a new cpuset cgroup gets its parent's cpus and mems (the
 *   kernel leaves them empty, and an empty cpuset refuses tasks).
 * - v2: one directory; the parents' cgroup.subtree_control get every controller they have, so the
 *   cgroup has the cpu, memory and pids files to write.
 * - destroy: every process left in the tree is SIGKILLed (Go's pod cgroup cleanup kills leftovers),
 *   then the directories are removed deepest first, retried while the kernel still counts the dead.
 * Foreign errors become KLT_ERR_CGROUP naming the path and the errno (EACCES, EROFS…).
 */
import { access, constants, mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cgroupFilesRead, cgroupFileWrites, parseCgroupFiles } from '../../domain/cgroups/cgroup-files.js';
import type { ResourceConfig } from '../../domain/cgroups/resource-config.js';
import { KubeletError } from '../../domain/errors.js';
import type { CgroupManager } from '../../ports/cgroups.js';
import type { CgroupLayout } from './cgroup-layout.js';
import type { GroupUsage } from './proc-usage.js';

/** The v1 controllers Go's Validate requires a cgroup to exist in (its whitelist, less systemd). */
const REQUIRED_V1 = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids'];
const DESTROY_ATTEMPTS = 20;
const DESTROY_RETRY_MS = 50;

function cgroupError(action: string, path: string, err: unknown): KubeletError {
  const code = (err as NodeJS.ErrnoException).code;
  const hint = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? ' (the kubelet needs root and a writable cgroup file system)' : '';
  return new KubeletError('KLT_ERR_CGROUP', `failed to ${action} cgroup ${JSON.stringify(path)}: ${(err as Error).message}${hint}`, { cause: err });
}

const exists = (dir: string) => access(dir).then(() => true, () => false);

export class Cgroupfs implements CgroupManager {
  constructor(private readonly layout: CgroupLayout) {}

  get version() {
    return this.layout.version;
  }

  literalName(path: string): string {
    return path;
  }

  /** The directories that make up `path`: one per mounted v1 hierarchy, or the v2 one. */
  private dirs(path: string): string[] {
    if (this.layout.version === 'v2') return [join(this.layout.unifiedRoot, path)];
    return [...new Set([...this.layout.controllers.values(), ...this.layout.hierarchies])].map((mount) => join(mount, path));
  }

  private dirOf(controller: string, path: string): string {
    if (this.layout.version === 'v2') return join(this.layout.unifiedRoot, path);
    const mount = this.layout.controllers.get(controller);
    if (!mount) throw new KubeletError('KLT_ERR_CGROUP', `cgroup controller ${controller} is not mounted (needed for ${JSON.stringify(path)})`);
    return join(mount, path);
  }

  async validate(path: string): Promise<void> {
    const required = this.layout.version === 'v2' ? [join(this.layout.unifiedRoot, path)] : REQUIRED_V1.map((c) => this.dirOf(c, path));
    const missing: string[] = [];
    for (const dir of required) if (!(await exists(dir))) missing.push(dir);
    if (missing.length > 0) throw new KubeletError('KLT_ERR_CGROUP', `cgroup ${JSON.stringify(path)} has some missing paths: ${missing.join(', ')}`);
    for (const dir of required) {
      // access(2) answers EACCES for a non-root user and EROFS for a read-only mount, even as root.
      await access(dir, constants.W_OK).catch((err: unknown) => {
        throw cgroupError('write under', dir, err);
      });
    }
  }

  async exists(path: string): Promise<boolean> {
    // One stat per hierarchy, all at once: a pod's start asks this before its sandbox.
    return (await Promise.all(this.dirs(path).map(exists))).every(Boolean);
  }

  async create(path: string, config: ResourceConfig): Promise<void> {
    try {
      if (this.layout.version === 'v2') await this.makeV2(path);
      else await Promise.all(this.dirs(path).map((dir) => mkdir(dir, { recursive: true })));
      if (this.layout.version === 'v1' && this.layout.controllers.has('cpuset')) await this.inheritCpuset(path);
    } catch (err) {
      throw err instanceof KubeletError ? err : cgroupError('create', path, err);
    }
    await this.update(path, config);
  }

  /** Each level from the top: the parent delegates its controllers, then the level is made. */
  private async makeV2(path: string): Promise<void> {
    const parts = path.split('/').filter((p) => p !== '');
    let dir = this.layout.unifiedRoot;
    for (const part of parts) {
      const controllers = (await readFile(join(dir, 'cgroup.controllers'), 'utf8').catch(() => '')).trim();
      const wanted = controllers.split(/\s+/).filter((c) => c !== '').map((c) => `+${c}`).join(' ');
      // Best effort, as libcontainer: a controller the parent cannot delegate is left out.
      if (wanted !== '') await writeFile(join(dir, 'cgroup.subtree_control'), wanted).catch(() => {});
      dir = join(dir, part);
      await mkdir(dir, { recursive: true });
    }
  }

  /** An empty cpuset.cpus/mems at any level of `path` is copied from its parent. */
  private async inheritCpuset(path: string): Promise<void> {
    const mount = this.layout.controllers.get('cpuset')!;
    let parent = mount;
    for (const part of path.split('/').filter((p) => p !== '')) {
      const dir = join(parent, part);
      for (const file of ['cpuset.cpus', 'cpuset.mems']) {
        const own = (await readFile(join(dir, file), 'utf8').catch(() => '')).trim();
        if (own === '') await writeFile(join(dir, file), (await readFile(join(parent, file), 'utf8')).trim());
      }
      parent = dir;
    }
  }

  async update(path: string, config: ResourceConfig): Promise<void> {
    for (const w of cgroupFileWrites(this.layout.version, config)) {
      const file = join(this.dirOf(w.controller, path), w.file);
      // O_CREAT|O_TRUNC as a shell's `>` does: the kernel ignores both on a control file.
      await writeFile(file, w.value).catch((err: unknown) => {
        throw cgroupError(`write ${w.value} to ${w.file} of`, path, err);
      });
    }
  }

  async read(path: string): Promise<ResourceConfig> {
    const files: Record<string, string> = {};
    for (const f of cgroupFilesRead(this.layout.version)) {
      if (this.layout.version === 'v1' && !this.layout.controllers.has(f.controller)) continue;
      const text = await readFile(join(this.dirOf(f.controller, path), f.file), 'utf8').catch(() => undefined);
      if (text !== undefined) files[f.file] = text.trim();
    }
    return parseCgroupFiles(this.layout.version, files);
  }

  /** The cgroup.procs file of `path` in each hierarchy: a process written to each joins the cgroup everywhere. */
  procsFiles(path: string): string[] {
    return this.dirs(path).map((dir) => join(dir, 'cgroup.procs'));
  }

  /** How many processes the kernel's OOM killer took in `path` (v1 memory.oom_control, v2 memory.events); 0 when unknown. */
  async oomKills(path: string): Promise<number> {
    const file = this.layout.version === 'v2' ? 'memory.events' : 'memory.oom_control';
    const controller = this.layout.version === 'v1' && !this.layout.controllers.has('memory') ? null : 'memory';
    if (!controller) return 0;
    const text = await readFile(join(this.dirOf(controller, path), file), 'utf8').catch(() => '');
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /**
   * What the cgroup charges, in a process group's terms (cAdvisor's reading): cpu time, the working
   * set (usage less inactive file pages), anonymous memory, page faults and its processes. Undefined
   * when the cgroup is gone.
   */
  async usage(path: string): Promise<GroupUsage | undefined> {
    const v2 = this.layout.version === 'v2';
    const read = (controller: string, file: string) =>
      this.layout.version === 'v1' && !this.layout.controllers.has(controller) ? Promise.resolve(undefined) : readFile(join(this.dirOf(controller, path), file), 'utf8').catch(() => undefined);
    const [cpu, usage, statText, procs] = await Promise.all([
      read(v2 ? '' : 'cpuacct', v2 ? 'cpu.stat' : 'cpuacct.usage'),
      read('memory', v2 ? 'memory.current' : 'memory.usage_in_bytes'),
      read('memory', 'memory.stat'),
      read('memory', 'cgroup.procs'),
    ]);
    if (usage === undefined || statText === undefined) return undefined;
    const stat = new Map(statText.split('\n').map((l) => l.split(' ') as [string, string]).filter((kv) => kv.length === 2));
    const n = (key: string) => BigInt(stat.get(v2 ? key : `total_${key}`) ?? 0);
    const cpuNs = v2 ? BigInt(/^usage_usec (\d+)$/m.exec(cpu ?? '')?.[1] ?? 0) * 1000n : BigInt((cpu ?? '0').trim() || 0);
    const used = BigInt(usage.trim() || 0);
    const inactive = n('inactive_file');
    return {
      cpuNs,
      residentBytes: used > inactive ? used - inactive : 0n,
      anonBytes: n(v2 ? 'anon' : 'rss'),
      minorFaults: n('pgfault'),
      majorFaults: n('pgmajfault'),
      processes: (procs ?? '').split('\n').filter((l) => l !== '').length,
    };
  }

  async children(path: string): Promise<string[]> {
    // The memory hierarchy (v1) holds every pod cgroup the kubelet or the runtime made.
    const dir = this.layout.version === 'v2' ? this.dirs(path)[0]! : this.dirOf(this.layout.controllers.has('memory') ? 'memory' : 'cpu', path);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  }

  /** SIGKILL to every process left in the cgroup and below it, in every hierarchy. */
  async killAll(path: string): Promise<void> {
    for (const top of this.dirs(path)) {
      for (const dir of await subtree(top)) await killProcesses(dir);
    }
  }

  async destroy(path: string): Promise<void> {
    for (const top of this.dirs(path)) {
      if (!(await exists(top))) continue;
      const tree = await subtree(top);
      for (let attempt = 0; ; attempt++) {
        for (const dir of tree) await killProcesses(dir);
        const left: string[] = [];
        for (const dir of tree) {
          await rmdir(dir).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') left.push(dir);
          });
        }
        if (left.length === 0) break;
        if (attempt >= DESTROY_ATTEMPTS) throw cgroupError('remove', path, new Error(`still busy: ${left.join(', ')}`));
        await sleep(DESTROY_RETRY_MS);
      }
    }
  }
}

/** `top` and every cgroup directory below it, deepest first. */
async function subtree(top: string): Promise<string[]> {
  const below: string[] = [];
  for (const e of await readdir(top, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) below.push(...(await subtree(join(top, e.name))));
  }
  return [...below, top];
}

async function killProcesses(dir: string): Promise<void> {
  const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
  for (const pid of text.split('\n').filter((p) => p !== '')) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}
