/**
 * systemd's unit manager, as the systemd cgroup driver uses it (runc's systemd manager over go-systemd):
 * transient slices started and waited for, their properties set, and stopped. Implemented over our
 * D-Bus client by src/adapters/systemd/systemd-bus.ts. Failures are KubeletErrors naming the unit.
 */
import type { UnitProperty } from '../domain/cgroups/systemd-units.js';

export interface SystemdUnits {
  /** The manager's version number (the leading integer of its Version property, `252` of `252.39-1~deb12u2`). */
  version(): Promise<number>;
  /** StartTransientUnit in "replace" mode, resolved once its job is done; a unit that exists already is not an error. */
  startTransientUnit(unit: string, properties: readonly UnitProperty[]): Promise<void>;
  /** SetUnitProperties, runtime only (gone at the next boot, as transient units are). */
  setUnitProperties(unit: string, properties: readonly UnitProperty[]): Promise<void>;
  /** StopUnit in "replace" mode, resolved once its job is done; a unit systemd does not know is not an error. */
  stopUnit(unit: string): Promise<void>;
  close(): void;
}
