/**
 * The node shutdown manager's NodeShutdown Normal event on the Node (Go records it with its
 * recorder when a shutdown or its cancellation is detected). The machine emits it; this hands it to
 * the event recorder.
 */
import type { AnyActorRef } from 'xstate';
import type { NodeShutdownEmitted } from '../../machines/node-shutdown.machine.js';
import type { EventRecorder } from '../../ports/event-recorder.js';

/** Go's kubeletevents.NodeShutdown. */
export const NODE_SHUTDOWN_EVENT_REASON = 'NodeShutdown';

export function relayNodeShutdownEvents(nodeShutdown: AnyActorRef, recorder: () => EventRecorder | undefined): void {
  nodeShutdown.on('node.shutdown.detected', (event: NodeShutdownEmitted) => {
    // Go refers to the Node by name, its name standing in for the uid (nodeRef).
    recorder()?.recordEvent({ object: { kind: 'Node', name: event.nodeName, uid: event.nodeName, namespace: '' }, type: 'Normal', reason: NODE_SHUTDOWN_EVENT_REASON, message: event.message });
  });
}
