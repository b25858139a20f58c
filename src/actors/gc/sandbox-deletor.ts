/**
 * The pod sandbox deletor (Go's podSandboxDeleter): removes a pod's stopped sandboxes as soon as the
 * syncLoop asks, instead of leaving them to the container GC's next minute. The syncLoop decides when
 * and how many to keep (machines/sync-loop.machine.ts); this actor reads the pod's sandboxes and
 * containers from the runtime, picks (domain/runtime/dead-sandboxes.ts) and removes them, one request
 * at a time. Requests waiting are coalesced per pod, the latest `keep` winning (it is the syncLoop's
 * newest view of the pod); beyond the buffer (far more pods than a node runs) they are dropped with a
 * log line.
 */
import { sandboxesToRemove } from '../../domain/runtime/dead-sandboxes.js';
import { podUidLabel } from '../../domain/runtime/labels.js';
import type { Logger } from '../../log.js';
import type { CriClient } from '../../ports/cri.js';
import type { PodSandboxesRemoveRequested } from '../../machines/sync-loop.machine.js';
import { oneAtATimeActor, type BoundedQueue } from './one-at-a-time.js';

/**
 * Pods with a request waiting. Go buffers 20 requests and drops the rest, so a node deleting 30 pods
 * at once leaves some sandboxes to the GC's next minute; here a request per pod is kept (a pod asked
 * again replaces its own), so the bound is the node's pods, and this limit only guards against a
 * flood of uids.
 */
export const SANDBOX_DELETOR_BUFFER = 1024;

export interface SandboxDeletorDeps {
  cri: Pick<CriClient, 'runtime'>;
  logger: Logger;
}

/** Removes what one request picks; a sandbox already gone is not an error. */
export async function removeDeadSandboxes(deps: SandboxDeletorDeps, request: PodSandboxesRemoveRequested): Promise<string[]> {
  const selector = { label_selector: { [podUidLabel]: request.podUid } };
  const [sandboxes, containers] = await Promise.all([deps.cri.runtime.listPodSandbox(selector), deps.cri.runtime.listContainers(selector)]);
  const candidates = sandboxes.map((s) => ({ id: s.id, ready: s.state === 'SANDBOX_READY', createdAtNs: s.created_at }));
  const removed: string[] = [];
  for (const id of sandboxesToRemove(candidates, new Set(containers.map((c) => c.pod_sandbox_id)), request.keep)) {
    try {
      await deps.cri.runtime.removePodSandbox(id);
      removed.push(id);
    } catch (err) {
      deps.logger.info({ err, sandboxId: id, podUID: request.podUid }, 'Failed to remove the pod sandbox');
    }
  }
  return removed;
}

export function createSandboxDeletorActor(deps: SandboxDeletorDeps) {
  return oneAtATimeActor(deps.logger, () => new PerPodQueue(), (request) => removeDeadSandboxes(deps, request), {
    removed: 'Removed pod sandboxes',
    listFailed: 'Failed to list the pod\'s sandboxes to remove the stopped ones',
    dropped: 'Failed to issue the request to remove sandboxes: the queue is full',
  });
}

/** The requests waiting, one per pod in arrival order; a pod asked again takes its latest request. */
class PerPodQueue implements BoundedQueue<PodSandboxesRemoveRequested> {
  private readonly waiting = new Map<string, PodSandboxesRemoveRequested>();

  add(request: PodSandboxesRemoveRequested): boolean {
    if (!this.waiting.has(request.podUid) && this.waiting.size >= SANDBOX_DELETOR_BUFFER) return false;
    this.waiting.set(request.podUid, request);
    return true;
  }

  next(): PodSandboxesRemoveRequested | undefined {
    const first = this.waiting.entries().next();
    if (first.done) return undefined;
    this.waiting.delete(first.value[0]);
    return first.value[1];
  }
}
