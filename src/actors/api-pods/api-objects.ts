/**
 * Pods and Events to and from the API server's wire objects. The port types answers only as far as
 * every kind shares (KubeObject: metadata plus untyped fields); what kind a call answers with is the
 * API server's contract, so reading an answer as a Pod is taken on trust here, once. The event
 * recorder reads nothing from its answers.
 */
import type { Pod } from '../../domain/pod/types.js';
import type { CoreEvent } from '../../domain/status-manager/event-aggregation.js';
import type { KubeObject } from '../../ports/apiserver.js';

/** A pods call's answer as a Pod. */
export function podFromApi(object: KubeObject): Pod {
  // No type can carry the API server's contract across the wire, and checking every field of every
  // answer would cost the hot watch path for nothing the server does not already guarantee.
  return object as unknown as Pod; // cast: the server's contract, not a type (see above)
}

/** A pod to create: the API server assigns its uid. */
export type NewPod = Omit<Pod, 'metadata'> & { metadata: Omit<Pod['metadata'], 'uid'> };

/** A Pod or Event as a wire object (a shallow copy: the wire type is open-ended, ours are not). */
export function toApiObject(object: Pod | NewPod | CoreEvent): KubeObject {
  return { ...object, metadata: { ...object.metadata } };
}
