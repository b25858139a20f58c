/**
 * Sidecar termination order (Go's terminationOrdering, SidecarContainers): when a pod with
 * restartable init containers stops, its regular containers go first, then the sidecars in reverse
 * order of declaration, each sidecar waiting (within its remaining grace period) for the regular
 * containers and every later sidecar to have stopped. Containers that are not running are not waited
 * for. preStop hooks still start at once, in parallel; only the stop itself waits its turn.
 */
import type { Pod } from '../../domain/pod/types.js';
import { isRestartableInitContainer } from '../../domain/runtime/init-containers.js';
import type { Clock } from '../../ports/clock.js';

interface Gate { done: Promise<void>; open: () => void }

function gate(): Gate {
  let open = (): void => undefined;
  const done = new Promise<void>((resolve) => { open = resolve; });
  return { done, open };
}

export class TerminationOrdering {
  private readonly terminated = new Map<string, Gate>();
  private readonly prereqs = new Map<string, Promise<void>[]>();

  constructor(pod: Pod, runningContainerNames: readonly string[], private readonly clock: Clock) {
    const running = new Set(runningContainerNames);
    const track = (name: string): Gate => {
      const g = gate();
      if (!running.has(name)) g.open(); // nothing to wait for
      this.terminated.set(name, g);
      return g;
    };
    const mains = pod.spec.containers.map((c) => track(c.name).done);
    let laterSidecar: string | undefined;
    for (const init of [...(pod.spec.initContainers ?? [])].reverse()) {
      track(init.name);
      if (!isRestartableInitContainer(init)) continue;
      const waits = [...mains];
      const later = laterSidecar === undefined ? undefined : this.terminated.get(laterSidecar);
      if (later) waits.push(later.done);
      this.prereqs.set(init.name, waits);
      laterSidecar = init.name;
    }
  }

  /** Waits until it is this container's turn, or gracePeriodSeconds; returns the whole seconds waited. */
  async waitForTurn(name: string, gracePeriodSeconds: number): Promise<number> {
    const waits = this.prereqs.get(name);
    if (!waits || waits.length === 0) return 0;
    const started = this.clock.now();
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => { timer = this.clock.setTimeout(() => resolve(), gracePeriodSeconds * 1000); });
    await Promise.race([Promise.all(waits), timeout]);
    this.clock.clearTimeout(timer);
    return Math.floor((this.clock.now() - started) / 1000);
  }

  containerTerminated(name: string): void {
    this.terminated.get(name)?.open();
  }
}
