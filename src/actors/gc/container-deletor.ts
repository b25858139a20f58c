/**
 * The pod container deletor (Go's podContainerDeletor): removes a pod's dead containers as soon as
 * the syncLoop asks, instead of leaving them to the container GC's next minute. The syncLoop decides
 * when and how many to keep (machines/sync-loop.machine.ts); this actor reads the pod's containers
 * from the runtime (unless the request names them: a finished worker's), picks
 * (domain/runtime/dead-containers.ts) and removes them, one request at a time, as Go's single worker
 * goroutine does. Requests waiting are coalesced per pod (DeletionQueue); beyond the buffer (far
 * more pods than a node runs) they are dropped with a log line, as Go drops them (the periodic GC
 * still gets those containers).
 */
import { deadContainersToRemove, type DeadContainerCandidate } from '../../domain/runtime/dead-containers.js';
import { containerNameLabel, podUidLabel } from '../../domain/runtime/labels.js';
import type { Logger } from '../../log.js';
import type { CriClient } from '../../ports/cri.js';
import { runtimeContainerState } from '../runtime-manager/container-state.js';
import type { DeadContainersRemoveRequested } from '../../machines/sync-loop.machine.js';
import { oneAtATimeActor, type BoundedQueue } from './one-at-a-time.js';

/**
 * Requests waiting. Go buffers 50 container ids and drops the rest; its worker removes one in a few
 * milliseconds once its PLEG saw it die, so the channel rarely fills. Here a request names a whole
 * pod and waits behind slower ones, so a full node's pods deleted at once would overflow Go's bound
 * and leave the rest to the GC's next minute. Coalesced per pod (and per container), the queue is
 * bounded by the node's pods; this limit, the sandbox deletor's, only guards against a flood of uids.
 */
export const CONTAINER_DELETOR_BUFFER = 1024;

export interface ContainerDeletorDeps {
  cri: Pick<CriClient, 'runtime'>;
  logger: Logger;
}

/** Removes what one request names; a container already gone is not an error. */
export async function removeDeadContainers(deps: ContainerDeletorDeps, request: DeadContainersRemoveRequested): Promise<string[]> {
  if (request.containerIds) return removeEach(deps, request.podUid, request.containerIds);
  const listed = await deps.cri.runtime.listContainers({ label_selector: { [podUidLabel]: request.podUid } });
  const candidates = listed.map((c): DeadContainerCandidate => ({
    id: c.id,
    name: c.labels[containerNameLabel] ?? c.metadata?.name ?? '',
    state: runtimeContainerState(c.state),
    createdAtNs: c.created_at,
  }));
  return removeEach(deps, request.podUid, deadContainersToRemove(candidates, request.containerId, request.keep));
}

async function removeEach(deps: ContainerDeletorDeps, podUid: string, ids: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const id of ids) {
    try {
      await deps.cri.runtime.removeContainer(id);
      removed.push(id);
    } catch (err) {
      deps.logger.warn({ err, containerID: id, podUID: podUid }, 'Failed to remove container');
    }
  }
  return removed;
}

export function createContainerDeletorActor(deps: ContainerDeletorDeps) {
  return oneAtATimeActor(deps.logger, () => new DeletionQueue(), (request) => removeDeadContainers(deps, request), {
    removed: 'Removed dead containers',
    listFailed: 'Failed to list the pod\'s containers to remove the dead ones',
    dropped: 'Failed to issue the request to remove containers: the queue is full',
  });
}

/**
 * The requests waiting, in arrival order, keyed per pod and container: the same request twice is
 * one, and a request for all of a pod's dead containers replaces (and covers) those for one of
 * them, so a deleted pod waits once however many of its containers die (Go keys its queue by
 * container id; coalescing per pod is how our requests, which name a pod, stay within the bound).
 */
class DeletionQueue implements BoundedQueue<DeadContainersRemoveRequested> {
  private readonly waiting = new Map<string, DeadContainersRemoveRequested>();

  add(request: DeadContainersRemoveRequested): boolean {
    const all = `${request.podUid}/*`;
    const key = request.containerId === null ? all : `${request.podUid}/${request.containerId}`;
    if (this.waiting.has(all) || this.waiting.has(key)) return true;
    if (request.containerId === null) {
      for (const k of this.waiting.keys()) if (k.startsWith(`${request.podUid}/`)) this.waiting.delete(k);
    }
    if (this.waiting.size >= CONTAINER_DELETOR_BUFFER) return false;
    this.waiting.set(key, request);
    return true;
  }

  next(): DeadContainersRemoveRequested | undefined {
    const first = this.waiting.entries().next();
    if (first.done) return undefined;
    this.waiting.delete(first.value[0]);
    return first.value[1];
  }
}
