/**
 * The nodeStatusMachine's effects (its NODE_STATUS_EFFECTS), over the ApiServer port:
 * registration through the main client (Go: kl.kubeClient), status PATCHes through the heartbeat
 * client (Go: kl.heartbeatClient), images from the CRI image service, the Node followed through
 * the main client's informer, its pod CIDR given to the runtime (CRI UpdateRuntimeConfig).
 */
import type { Logger } from 'pino';
import { fromCallback, fromPromise } from 'xstate';
import { ANNOTATION_CMAD, defaultLabels, initialNode, reconcileExistingNode } from '../../domain/node-status/initial-node.js';
import { computeNodeStatus, type ListedImage } from '../../domain/node-status/node-status.js';
import { liveNodeOf, sameLiveNode, type LiveNode } from '../../domain/node-status/live-node.js';
import type {
  ApiAnswer, NodeFacts, NodeObjectObservedEvent, NodeRefreshAnsweredEvent, NodeRefreshRequestedEvent, PatchNodeStatusInput, ReconcileNodeInput, RegisterNodeInput,
  UpdatePodCIDRInput, WatchNodeInput,
} from '../../machines/node-status.machine.js';
import type { FollowNode, HeartbeatApi, NodeApi, NodeMetadataPatch, NodeObject } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import { answer } from './answer.js';

/**
 * How long an image list is used for the node status before it is read again: Go's image manager
 * refreshes the list it hands the node status every 30 s, while the status is computed every 10 s.
 */
export const IMAGE_LIST_REFRESH_MS = 30_000;

export interface NodeStatusActorDeps {
  /** The main client: registration. */
  api: NodeApi;
  /** The heartbeat client: status updates, re-opened on repeated failures. */
  heartbeat: HeartbeatApi;
  /** The CRI ImageService's list, as the node status needs it. */
  listImages: () => Promise<ListedImage[]>;
  /** The Node's informer (the main client). */
  followNode: FollowNode;
  /** CRI UpdateRuntimeConfig with the pod CIDR. */
  updateRuntimeConfig: (podCIDR: string) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** The volume manager's attachable volumes in use (Go's GetVolumesInUse); absent, or undefined before the volumes on disk were reconstructed: none reported, the Node's list left as it is. */
  volumesInUse?: () => string[] | undefined;
  /** Told of each registration answer, whatever it was (the kubelet server's start waits for the first). */
  onRegistrationAnswered?: () => void;
}

export function nodeStatusActors(deps: NodeStatusActorDeps) {
  const { clock, logger } = deps;
  // The last image list that could be read: a runtime outage must not stop status updates (the
  // Ready condition has to say the runtime is down), so the images stay as they were.
  let lastImages: ListedImage[] = [];
  let listedAtMs: number | null = null;
  return {
    registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async ({ input }) => {
      const node = initialNode(input.registration);
      node.status = computeNodeStatus({ facts: input.facts, health: input.health, images: lastImages, previousConditions: [], nowMs: clock.now() });
      const result = await answer(clock, () => deps.api.createNode(node));
      deps.onRegistrationAnswered?.();
      if (result.ok) logger.info({ node: input.registration.nodeName }, 'Successfully registered node');
      else logger.info({ node: input.registration.nodeName, err: result.error }, 'Unable to register node with API server');
      return result;
    }),
    reconcileNode: fromPromise<ApiAnswer<NodeObject>, ReconcileNodeInput>(async ({ input }) =>
      answer(clock, async () => {
        const spec = input.registration;
        const existing = await deps.api.getNode(spec.nodeName);
        const { changed } = reconcileExistingNode(existing, spec);
        if (!changed) return existing;
        // Strategic merge: the default labels as the kubelet sees them; null removes the annotation.
        const patch: NodeMetadataPatch = { metadata: { labels: defaultLabels(spec), annotations: { [ANNOTATION_CMAD]: spec.enableControllerAttachDetach ? 'true' : null } } };
        logger.info({ node: spec.nodeName }, 'Node was previously registered, reconciling labels and annotations');
        return deps.api.patchNode(spec.nodeName, patch);
      })),
    getNode: fromPromise<ApiAnswer<NodeObject>, { nodeName: string }>(async ({ input }) => answer(clock, () => deps.api.getNode(input.nodeName))),
    readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => {
      try {
        if (listedAtMs === null || clock.now() - listedAtMs >= IMAGE_LIST_REFRESH_MS) {
          lastImages = await deps.listImages();
          listedAtMs = clock.now();
        }
      } catch (err) {
        logger.debug({ err }, 'Failed to list images for the node status, keeping the last list');
      }
      const volumesInUse = deps.volumesInUse?.();
      return { ok: true, value: { images: lastImages, ...(volumesInUse ? { volumesInUse } : {}) }, observedAtMs: clock.now() };
    }),
    patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async ({ input }) => {
      // Go: onRepeatedHeartbeatFailure (closeAllConns) from the second try on.
      if (input.attempt > 0) deps.heartbeat.reopen();
      const result = await answer(clock, () => deps.heartbeat.patchNodeStatus(input.nodeName, input.status));
      if (!result.ok) logger.warn({ node: input.nodeName, attempt: input.attempt, err: result.error }, 'Error updating node status, will retry');
      return result;
    }),
    watchNode: watchNodeActor(deps),
    updatePodCIDR: fromPromise<ApiAnswer<string>, UpdatePodCIDRInput>(async ({ input }) => {
      const result = await answer(clock, async () => {
        await deps.updateRuntimeConfig(input.podCIDR);
        return input.podCIDR;
      });
      if (result.ok) logger.info({ originalPodCIDR: input.previous, newPodCIDR: input.podCIDR }, 'Updating Pod CIDR');
      else logger.error({ err: result.error, podCIDR: input.podCIDR }, 'Error updating pod CIDR');
      return result;
    }),
  };
}

/**
 * Follows the Node and sends `node.object.observed` only when what admission and the pod CIDR
 * read of it changed, so the heartbeats that rewrite its status every few seconds journal nothing.
 * Asked `node.refresh.requested`, it GETs the Node and answers with it whatever it holds.
 */
function watchNodeActor(deps: Pick<NodeStatusActorDeps, 'api' | 'followNode' | 'clock' | 'logger'>) {
  return fromCallback<NodeRefreshRequestedEvent, WatchNodeInput>(({ input, sendBack, receive }) => {
    let last: LiveNode | null = null;
    let stopped = false;
    const follower = deps.followNode(input.nodeName, (object) => {
      const node = liveNodeOf(object);
      if (last && sameLiveNode(last, node)) return;
      last = node;
      sendBack({ type: 'node.object.observed', node, observedAtMs: deps.clock.now() } satisfies NodeObjectObservedEvent);
    });
    receive(() => {
      void answer(deps.clock, () => deps.api.getNode(input.nodeName)).then((read) => {
        if (stopped) return;
        if (!read.ok) deps.logger.error({ err: read.error, node: input.nodeName }, 'Failed to synchronously fetch node info');
        const answered: NodeRefreshAnsweredEvent = read.ok
          ? { type: 'node.refresh.answered', node: liveNodeOf(read.value), observedAtMs: read.observedAtMs }
          : { type: 'node.refresh.answered', error: read.error, observedAtMs: read.observedAtMs };
        if (read.ok) last = liveNodeOf(read.value);
        sendBack(answered);
      });
    });
    return () => {
      stopped = true;
      follower.stop();
    };
  });
}
