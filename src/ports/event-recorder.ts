/**
 * The kubelet's event recorder (client-go tools/record's EventRecorder for component "kubelet"):
 * what phases, actors and the composition root record Events through. Implemented in
 * src/actors/api-pods/event-recorder.ts (to the API server, or to the log standalone).
 */
import type { EventRequest } from '../domain/status-manager/event-aggregation.js';

export interface EventRecorder {
  /** Never blocks and never throws: the event is queued, or dropped when the queue is full. */
  recordEvent(request: EventRequest): void;
  /** Resolves when every queued event was posted (or given up on). */
  flush(): Promise<void>;
}
