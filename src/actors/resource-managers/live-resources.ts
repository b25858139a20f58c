/**
 * The resource managers' assignments as the running kubelet last heard them from the syncLoop,
 * for what reads them outside of admission: the container starter (the shared CPU pool a container
 * without exclusive CPUs is created on) and the CPU reconcile.
 */
import type { Assignments } from '../../domain/resource-managers/assignments.js';
import type { ResourceInventory } from '../../domain/resource-managers/inventory.js';
import { sharedCpuPool } from '../../domain/resource-managers/cpu-pool.js';

export class LiveResources {
  private current: Assignments;

  constructor(readonly inventory: ResourceInventory, initial: Assignments) {
    this.current = initial;
  }

  get assignments(): Assignments {
    return this.current;
  }

  update(assignments: Assignments): void {
    this.current = assignments;
  }

  /** The static CPU manager's shared pool now; undefined with the none policy. */
  sharedCpus(): number[] | undefined {
    return this.inventory.cpu ? sharedCpuPool(this.inventory.cpu, this.current) : undefined;
  }
}
