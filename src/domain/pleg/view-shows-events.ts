/**
 * Whether a pod worker's last runtime view already shows what a relist reported of the pod, so the
 * sync the relist asks for can plan from that view instead of reading the runtime again. In a burst
 * the relist often sees a container start while the sync that started it is still running; the worker
 * reads the pod's status when that sync ends, and a second read for the relist's sync would find the
 * same. Go's pod workers read the PLEG's cache instead of the runtime for the same reason.
 *
 * A view shows an event when it holds the container (or sandbox) in the reported state or a later
 * one: started when it is running or has exited, died when it has exited. A removal is never taken
 * as shown: a view without the container may predate it as well as follow its removal.
 */
import type { RuntimePodStatus } from '../runtime/pod-status.js';

/** A relist's event of one pod, as the sync loop hands it to the pod's worker. */
export interface RuntimeEventNote {
  type: string;
  /** The container's or sandbox's id. */
  containerId: string;
}

export function viewShowsEvents(view: RuntimePodStatus | null, events: readonly RuntimeEventNote[]): boolean {
  if (view === null || events.length === 0) return false;
  return events.every((e) => viewShows(view, e));
}

function viewShows(view: RuntimePodStatus, event: RuntimeEventNote): boolean {
  const container = view.containers.find((c) => c.id === event.containerId);
  const sandbox = container ? undefined : view.sandboxes.find((s) => s.id === event.containerId);
  switch (event.type) {
    case 'ContainerStarted':
      return container ? container.state === 'running' || container.state === 'exited' : sandbox !== undefined;
    case 'ContainerDied':
      return container ? container.state === 'exited' : sandbox !== undefined && !sandbox.ready;
    default:
      return false;
  }
}
