/**
 * Typed sends to the actors registered under a system id.
 *
 * An actor reaches a sibling through the actor system (`system.get(id)`), and its own children by
 * id; neither knows the ids nor what each actor accepts. This map does: a send with an id no actor
 * is registered under, an event type the receiver does not handle or a payload of the wrong shape
 * fails to compile. A sibling send also says whether the receiver may be absent: `sendToSystem`
 * treats absence as a bug and throws, naming the id and the event; `sendToSystemIfRunning` skips
 * the send. A child send (`sendToChild`) needs no such choice: XState throws when there is no
 * child of that id.
 */
import type { AnyActorRef, EventObject } from 'xstate';
import type { ContainerManagerEvent } from './container-manager.machine.js';
import type { EvictionManagerEvent } from './eviction-manager.machine.js';
import type { NodeLeaseEvent } from './node-lease.machine.js';
import type { NodeShutdownEvent } from './node-shutdown.machine.js';
import type { NodeStatusEvent } from './node-status.machine.js';
import type { PluginManagerEvent } from './plugin-manager.machine.js';
import type { DeviceManagerEvent } from './device-manager.machine.js';
import type { PluginRegistrationEvent } from './plugin-registration.machine.js';
import type { PodWorkerEvent } from './pod-worker.machine.js';
import type { ProbeEvent } from './probe.machine.js';
import type { StatusManagerEvent } from './status-manager.machine.js';
import type { DeadContainersRemoveRequested, PodSandboxesRemoveRequested, ResourcesChanged, SyncLoopEvent } from './sync-loop.machine.js';
import type { VolumeManagerEvent } from './volume-manager.machine.js';
import type { VolumeEvent } from './volume.machine.js';

/** What each actor registered under a fixed system id accepts: its machine's event union. */
export interface SystemActorEvents {
  syncLoop: SyncLoopEvent;
  statusManager: StatusManagerEvent;
  volumeManager: VolumeManagerEvent;
  containerManager: ContainerManagerEvent;
  evictionManager: EvictionManagerEvent;
  nodeStatus: NodeStatusEvent;
  nodeLease: NodeLeaseEvent;
  nodeShutdown: NodeShutdownEvent;
  pluginManager: PluginManagerEvent;
  deviceManager: DeviceManagerEvent;
  containerDeletor: DeadContainersRemoveRequested;
  sandboxDeletor: PodSandboxesRemoveRequested;
  resourceManagers: ResourcesChanged;
}

/** The actors made per pod, volume or probe, by the prefix of their ids (see domain/actor-ids.ts). */
export interface PerObjectActorEvents {
  pod: PodWorkerEvent;
  probe: ProbeEvent;
  volume: VolumeEvent;
  plugin: PluginRegistrationEvent;
}
export type PerObjectActorId = `${keyof PerObjectActorEvents}:${string}`;

export type SystemId = keyof SystemActorEvents | PerObjectActorId;

/** The events the actor registered as `Id` accepts. */
export type SystemEventOf<Id extends SystemId> =
  Id extends keyof SystemActorEvents ? SystemActorEvents[Id]
  : Id extends `${infer Kind extends keyof PerObjectActorEvents}:${string}` ? PerObjectActorEvents[Kind]
  : never;

/**
 * An event every actor of `Id` accepts. `Id` is a union when a loop sends one event to several
 * ids; the intersection keeps only what each of them handles, where a plain union would let an
 * event through that one of them does not know.
 */
export type SystemEventForAll<Id extends SystemId> =
  (Id extends SystemId ? (event: SystemEventOf<Id>) => void : never) extends (event: infer E extends EventObject) => void ? E : never;

/** What an action's `enqueue` offers a send. */
export interface SystemSendQueue { sendTo: (to: AnyActorRef, event: EventObject) => void }
/** What an action's `enqueue` offers a send to one of its children. */
export interface ChildSendQueue { sendTo: (to: string, event: EventObject) => void }
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

/** Sends `event` to the caller's child `id` (spawned or invoked under that id and system id). */
export function sendToChild<Id extends SystemId>(enqueue: ChildSendQueue, id: Id, event: SystemEventForAll<Id>): void {
  enqueue.sendTo(id, event);
}
