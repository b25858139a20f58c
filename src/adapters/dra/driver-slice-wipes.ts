/**
 * Go's per-driver wipe (the DRA plugin manager's sync and pendingWipes): when a driver is no longer
 * usable — its last plugin deregistered, or no plugin of it has its gRPC connection up (a plugin
 * that died without removing its socket) — its ResourceSlices on this node are deleted
 * DRIVER_WIPE_DELAY_MS later, unless a plugin of it is connected first (a rolling update replaces
 * a plugin without its devices disappearing). A wipe already pending keeps its time; one under way
 * is stopped when the driver is usable again.
 */
import { DRIVER_WIPE_DELAY_MS } from '../../domain/dra/slice-wipe.js';
import type { Clock } from '../../ports/clock.js';
import type { DraDriverRegistry } from '../../ports/dra-drivers.js';

export interface DriverSliceWipesDeps {
  registry: Pick<DraDriverRegistry, 'usable' | 'onChange'>;
  clock: Clock;
  /** Deletes the driver's slices naming this node, retrying, until done or `signal` aborts. */
  wipe: (driverName: string, signal: AbortSignal) => Promise<void>;
  delayMs?: number;
}

interface PendingWipe {
  timer: unknown;
  running: AbortController;
}

export function startDriverSliceWipes(deps: DriverSliceWipesDeps): { stop: () => void } {
  const delayMs = deps.delayMs ?? DRIVER_WIPE_DELAY_MS;
  const pending = new Map<string, PendingWipe>();
  const cancel = (driverName: string) => {
    const wipe = pending.get(driverName);
    if (!wipe) return;
    deps.clock.clearTimeout(wipe.timer);
    wipe.running.abort();
    pending.delete(driverName);
  };
  const unsubscribe = deps.registry.onChange((driverName) => {
    if (deps.registry.usable(driverName)) return cancel(driverName);
    if (pending.has(driverName)) return;
    const running = new AbortController();
    const wipe: PendingWipe = { running, timer: undefined };
    wipe.timer = deps.clock.setTimeout(() => {
      void deps.wipe(driverName, running.signal).finally(() => {
        if (pending.get(driverName) === wipe) pending.delete(driverName);
      });
    }, delayMs);
    pending.set(driverName, wipe);
  });
  return {
    stop: () => {
      unsubscribe();
      for (const driverName of [...pending.keys()]) cancel(driverName);
    },
  };
}
