/**
 * The systemd cgroup manager (Go's cgroupManagerImpl with runc's systemd manager): a cgroup is a
 * transient slice unit that systemd makes and owns, and the cgroup files are read and written where
 * systemd put them (the slice's expansion, `/kubepods.slice/kubepods-burstable.slice`).
 *
 * - create: StartTransientUnit with runc's slice properties, waited for; then the slice's directory
 *   in the hierarchies systemd leaves alone on v1 (cpuset with its parent's cpus and mems, and the
 *   others), as runc joins them; then update.
 * - update: SetUnitProperties with the resources (what systemd keeps and re-applies), then the same
 *   values written to the files, as runc's Set does after it.
 * - destroy: what still runs is killed, the unit stopped (its job waited for), then whatever
 *   directory is left removed.
 * Names at this port are the cgroupfs form of the components (`/kubepods/burstable/pod<uid>`), as for
 * the cgroupfs manager; children() answers them in that form too, so the callers need not know the
 * driver. Names the runtime sees (literalName) are the expansion, Go's cgroupManager.Name.
 */
import { parseCgroupfsName } from '../../domain/node/cgroup-roots.js';
import { lastComponentOfSlice, resourceProperties, sliceOf, sliceStartProperties, type SliceName } from '../../domain/cgroups/systemd-units.js';
import type { ResourceConfig } from '../../domain/cgroups/resource-config.js';
import { KubeletError } from '../../domain/errors.js';
import type { CgroupManager } from '../../ports/cgroups.js';
import type { SystemdUnits } from '../../ports/systemd-units.js';
import type { Cgroupfs } from './cgroupfs.js';

export class SystemdCgroups implements CgroupManager {
  private systemdVersion: Promise<number> | undefined;

  constructor(private readonly files: Cgroupfs, private readonly units: SystemdUnits) {}

  get version() {
    return this.files.version;
  }

  private slice(path: string): SliceName {
    try {
      return sliceOf(parseCgroupfsName(path));
    } catch (err) {
      throw new KubeletError('KLT_ERR_CGROUP', `cgroup ${JSON.stringify(path)} cannot be named as a systemd slice: ${(err as Error).message}`, { cause: err });
    }
  }

  literalName(path: string): string {
    return this.slice(path).path;
  }

  validate(path: string): Promise<void> {
    return this.files.validate(this.slice(path).path);
  }

  exists(path: string): Promise<boolean> {
    return this.files.exists(this.slice(path).path);
  }

  async create(path: string, config: ResourceConfig): Promise<void> {
    const slice = this.slice(path);
    await this.units.startTransientUnit(slice.unit, sliceStartProperties(slice, this.files.version));
    await this.files.create(slice.path, {});
    await this.update(path, config);
  }

  async update(path: string, config: ResourceConfig): Promise<void> {
    const slice = this.slice(path);
    this.systemdVersion ??= this.units.version();
    this.systemdVersion.catch(() => {
      this.systemdVersion = undefined;
    });
    await this.units.setUnitProperties(slice.unit, resourceProperties(config, this.files.version, await this.systemdVersion));
    await this.files.update(slice.path, config);
  }

  read(path: string): Promise<ResourceConfig> {
    return this.files.read(this.slice(path).path);
  }

  async children(path: string): Promise<string[]> {
    const names = await this.files.children(this.slice(path).path);
    return names.map(lastComponentOfSlice).filter((n): n is string => n !== null).sort();
  }

  async destroy(path: string): Promise<void> {
    const slice = this.slice(path);
    await this.files.killAll(slice.path);
    await this.units.stopUnit(slice.unit);
    await this.files.destroy(slice.path);
  }

  close(): void {
    this.units.close();
  }
}
