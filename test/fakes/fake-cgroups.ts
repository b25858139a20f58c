/**
 * An in-memory CgroupManager: cgroups by path with the settings last written, the calls in order,
 * and one injectable failure (`failNext`), like the other fakes.
 */
import type { CgroupVersion } from '../../src/domain/cgroups/cgroup-files.js';
import type { ResourceConfig } from '../../src/domain/cgroups/resource-config.js';
import { KubeletError } from '../../src/domain/errors.js';
import type { CgroupManager } from '../../src/ports/cgroups.js';

export class FakeCgroups implements CgroupManager {
  readonly calls: string[] = [];
  /** Every cgroup that exists, by cgroupfs path ("/" always does). */
  readonly cgroups = new Map<string, ResourceConfig>([['/', {}]]);
  failNext?: { op: keyof CgroupManager; error: KubeletError };

  constructor(readonly version: CgroupVersion = 'v1') {}

  literalName(path: string): string {
    return path;
  }

  private record(op: keyof CgroupManager, path: string): void {
    this.calls.push(`${op} ${path}`);
    if (this.failNext?.op === op) {
      const { error } = this.failNext;
      delete this.failNext;
      throw error;
    }
  }

  async validate(path: string): Promise<void> {
    this.record('validate', path);
    if (!this.cgroups.has(path)) throw new KubeletError('KLT_ERR_CGROUP', `cgroup ${JSON.stringify(path)} has some missing paths: ${path}`);
  }

  async exists(path: string): Promise<boolean> {
    this.record('exists', path);
    return this.cgroups.has(path);
  }

  async create(path: string, config: ResourceConfig): Promise<void> {
    this.record('create', path);
    const parts = path.split('/').filter((p) => p !== '');
    for (let i = 1; i < parts.length; i++) {
      const parent = `/${parts.slice(0, i).join('/')}`;
      if (!this.cgroups.has(parent)) this.cgroups.set(parent, {});
    }
    this.cgroups.set(path, { ...this.cgroups.get(path), ...config });
  }

  async update(path: string, config: ResourceConfig): Promise<void> {
    this.record('update', path);
    if (!this.cgroups.has(path)) throw new KubeletError('KLT_ERR_CGROUP', `failed to update cgroup ${JSON.stringify(path)}: ENOENT`);
    this.cgroups.set(path, { ...this.cgroups.get(path), ...config });
  }

  async read(path: string): Promise<ResourceConfig> {
    return { ...this.cgroups.get(path) };
  }

  async children(path: string): Promise<string[]> {
    const prefix = path === '/' ? '/' : `${path}/`;
    return [...this.cgroups.keys()]
      .filter((p) => p.startsWith(prefix) && p !== path && !p.slice(prefix.length).includes('/'))
      .map((p) => p.slice(prefix.length))
      .sort();
  }

  async destroy(path: string): Promise<void> {
    this.record('destroy', path);
    for (const p of [...this.cgroups.keys()]) if (p === path || p.startsWith(`${path}/`)) this.cgroups.delete(p);
  }
}
