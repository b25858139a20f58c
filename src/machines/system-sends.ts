/**
 * Typed sends to the actors registered under a system id.
 *
 * An actor reaches a sibling through the actor system (`system.get(id)`), which knows neither the
 * ids nor what each actor accepts. This map does: a send with an id no actor is registered under,
 * an event type the receiver does not handle or a payload of the wrong shape fails to compile.
 * Each call site also says whether the receiver may be absent: `sendToSystem` treats absence as a
 * bug and throws, naming the id and the event; `sendToSystemIfRunning` skips the send.
 */
import type { AnyActorRef, EventObject } from 'xstate';
import type { ContainerManagerEvent } from './container-manager.machine.js';
import type { EvictionManagerEvent } from './eviction-manager.machine.js';
import type { NodeLeaseEvent } from './node-lease.machine.js';
import type { NodeStatusEvent } from './node-status.machine.js';
import type { PodWorkerEvent } from './pod-worker.machine.js';
import type { StatusManagerEvent } from './status-manager.machine.js';
import type { SyncLoopEvent } from './sync-loop.machine.js';
import type { VolumeManagerEvent } from './volume-manager.machine.js';

/** What each actor registered under a fixed system id accepts: its machine's event union. */
export interface SystemActorEvents {
  syncLoop: SyncLoopEvent;
  statusManager: StatusManagerEvent;
  volumeManager: VolumeManagerEvent;
  containerManager: ContainerManagerEvent;
  evictionManager: EvictionManagerEvent;
  nodeStatus: NodeStatusEvent;
  nodeLease: NodeLeaseEvent;
}

/** A pod worker's system id, one per pod (see podWorkerId). */
export type PodWorkerSystemId = `pod:${string}`;

export type SystemId = keyof SystemActorEvents | PodWorkerSystemId;

/** The events the actor registered as `Id` accepts. */
export type SystemEventOf<Id extends SystemId> = Id extends keyof SystemActorEvents ? SystemActorEvents[Id] : PodWorkerEvent;

/**
 * An event every actor of `Id` accepts. `Id` is a union when a loop sends one event to several
 * ids; the intersection keeps only what each of them handles, where a plain union would let an
 * event through that one of them does not know.
 */
export type SystemEventForAll<Id extends SystemId> =
  (Id extends SystemId ? (event: SystemEventOf<Id>) => void : never) extends (event: infer E extends EventObject) => void ? E : never;

/** What an action's `enqueue` offers a send. */
export interface SystemSendQueue { sendTo: (to: AnyActorRef, event: EventObject) => void }
/** What an action's `system` offers a send. */
export interface SystemLookup { get: (id: string) => AnyActorRef | undefined }

/** Sends `event` to the actor registered as `id`; its absence is a bug (the caller relies on the receiver). */
export function sendToSystem<Id extends SystemId>(enqueue: SystemSendQueue, system: SystemLookup, id: Id, event: SystemEventForAll<Id>): void {
  const target = system.get(id);
  if (!target) throw new Error(`no actor is registered as '${id}' to receive '${event.type}'`);
  enqueue.sendTo(target, event);
}

/** Sends `event` to the actor registered as `id` when there is one; the caller says why it may be absent. */
export function sendToSystemIfRunning<Id extends SystemId>(enqueue: SystemSendQueue, system: SystemLookup, id: Id, event: SystemEventForAll<Id>): void {
  const target = system.get(id);
  if (target) enqueue.sendTo(target, event);
}
