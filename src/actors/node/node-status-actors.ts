/**
 * The nodeStatusMachine's effects (its NODE_STATUS_EFFECTS), over the ApiServer port:
 * registration through the main client (Go: kl.kubeClient), status PATCHes through the heartbeat
 * client (Go: kl.heartbeatClient), images from the CRI image service.
 */
import type { Logger } from 'pino';
import { fromPromise } from 'xstate';
import { ANNOTATION_CMAD, defaultLabels, initialNode, reconcileExistingNode } from '../../domain/node-status/initial-node.js';
import { computeNodeStatus, type ListedImage } from '../../domain/node-status/node-status.js';
import type { ApiAnswer, NodeFacts, PatchNodeStatusInput, ReconcileNodeInput, RegisterNodeInput } from '../../machines/node-status.machine.js';
import type { HeartbeatApi, NodeApi, NodeMetadataPatch, NodeObject } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import { answer } from './answer.js';

export interface NodeStatusActorDeps {
  /** The main client: registration. */
  api: NodeApi;
  /** The heartbeat client: status updates, re-opened on repeated failures. */
  heartbeat: HeartbeatApi;
  /** The CRI ImageService's list, as the node status needs it. */
  listImages: () => Promise<ListedImage[]>;
  clock: Clock;
  logger: Logger;
}

export function nodeStatusActors(deps: NodeStatusActorDeps) {
  const { clock, logger } = deps;
  // The last image list that could be read: a runtime outage must not stop status updates (the
  // Ready condition has to say the runtime is down), so the images stay as they were.
  let lastImages: ListedImage[] = [];
  return {
    registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async ({ input }) => {
      const node = initialNode(input.registration);
      node.status = computeNodeStatus({ facts: input.facts, health: input.health, images: lastImages, previousConditions: [], nowMs: clock.now() });
      const result = await answer(clock, () => deps.api.createNode(node));
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
        lastImages = await deps.listImages();
      } catch (err) {
        logger.debug({ err }, 'Failed to list images for the node status, keeping the last list');
      }
      return { ok: true, value: { images: lastImages }, observedAtMs: clock.now() };
    }),
    patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async ({ input }) => {
      // Go: onRepeatedHeartbeatFailure (closeAllConns) from the second try on.
      if (input.attempt > 0) deps.heartbeat.reopen();
      const result = await answer(clock, () => deps.heartbeat.patchNodeStatus(input.nodeName, input.status));
      if (!result.ok) logger.warn({ node: input.nodeName, attempt: input.attempt, err: result.error }, 'Error updating node status, will retry');
      return result;
    }),
  };
}
