/**
 * The kubelet's own Node followed (Go's NewMainKubelet: an informer on nodes with the field
 * selector metadata.name=<node>, feeding the node lister): listed, then watched, over the reflector
 * (reflector.ts), which rides out an outage with its back-off and lists again after 410 Gone. Each
 * version of the Node is handed over as it comes; what changed is the caller's to decide.
 */
import type { Logger } from '../../log.js';
import type { FollowNode, KubeObject, NodeObject, OwnNodeApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import { startReflector } from './reflector.js';

export function nodeFollower(deps: { api: () => OwnNodeApi; clock: Clock; logger: Logger }): FollowNode {
  // The wire objects are Nodes: the field selector lets no other kind through.
  const asNode = (object: KubeObject) => object as NodeObject;
  return (nodeName, onNode) => startReflector<KubeObject>({
    list: () => deps.api().listOwnNode(nodeName),
    watch: (w) => deps.api().watchOwnNode({ name: nodeName, ...w }),
    clock: deps.clock,
    logger: deps.logger,
    what: 'the node',
    logFields: { node: nodeName },
    // Not there yet (before registration): nothing to hand over; the watch brings it when created.
    onReplaced: (items) => {
      const node = items[0];
      if (node) onNode(asNode(node));
    },
    // A deleted Node leaves the last one standing, as Go's admission falls back to its cached Node.
    onChanged: (type, node) => {
      if (type !== 'DELETED') onNode(asNode(node));
    },
    // The reflector logs and retries.
    onFailed: () => {},
  });
}
