/**
 * An in-memory SystemdUnits: the units started and not yet stopped with their properties, every
 * call in order, hooks that run at each call (to look at the cgroup files as systemd would see
 * them, or to remove a stopped slice's directories as systemd does) and one injectable failure.
 */
import type { UnitProperty } from '../../src/domain/cgroups/systemd-units.js';
import type { KubeletError } from '../../src/domain/errors.js';
import type { SystemdUnits } from '../../src/ports/systemd-units.js';

export type UnitCall =
  | { op: 'version' }
  | { op: 'start' | 'set'; unit: string; properties: readonly UnitProperty[] }
  | { op: 'stop'; unit: string };

export class FakeSystemdUnits implements SystemdUnits {
  readonly calls: UnitCall[] = [];
  /** Live units → the properties they were started with, then every set's merged in. */
  readonly units = new Map<string, Map<string, UnitProperty['value']>>();
  closed = false;
  failNext?: { op: UnitCall['op']; error: KubeletError };
  /** Runs at each call, after it is recorded and before it takes effect. */
  onCall?: (call: UnitCall) => void | Promise<void>;

  constructor(private readonly systemdVersion = 252) {}

  private async record(call: UnitCall): Promise<void> {
    this.calls.push(call);
    await this.onCall?.(call);
    if (this.failNext?.op === call.op) {
      const { error } = this.failNext;
      delete this.failNext;
      throw error;
    }
  }

  async version(): Promise<number> {
    await this.record({ op: 'version' });
    return this.systemdVersion;
  }

  async startTransientUnit(unit: string, properties: readonly UnitProperty[]): Promise<void> {
    await this.record({ op: 'start', unit, properties });
    if (!this.units.has(unit)) this.units.set(unit, new Map(properties.map((p) => [p.name, p.value])));
  }

  async setUnitProperties(unit: string, properties: readonly UnitProperty[]): Promise<void> {
    await this.record({ op: 'set', unit, properties });
    const live = this.units.get(unit);
    if (!live) throw new Error(`fake systemd: unit ${unit} not loaded`);
    for (const p of properties) live.set(p.name, p.value);
  }

  async stopUnit(unit: string): Promise<void> {
    await this.record({ op: 'stop', unit });
    this.units.delete(unit);
  }

  close(): void {
    this.closed = true;
  }

  /** The calls as `op unit` lines, for order checks. */
  get log(): string[] {
    return this.calls.map((c) => (c.op === 'version' ? 'version' : `${c.op} ${c.unit}`));
  }
}
