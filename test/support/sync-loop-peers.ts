/**
 * A syncLoop started under a root beside recording peers, for the machine tests of what it tells
 * other subsystems: each peer is a callback actor under its system id (as the composition root
 * gives them) that hands every event it receives to its function.
 */
import { createActor, createMachine, fromCallback, type AnyActorLogic, type AnyActorRef, type EventObject } from 'xstate';
import type { SyncLoopInput } from '../../src/machines/sync-loop.machine.js';

export function startSyncLoopAmong(syncLoop: AnyActorLogic, input: SyncLoopInput, peers: Record<string, (event: EventObject) => void>): AnyActorRef {
  const root = createActor(createMachine({
    invoke: [
      ...Object.entries(peers).map(([systemId, heard]) => ({ src: fromCallback<EventObject>(({ receive }) => { receive(heard); }), systemId })),
      { id: 'syncLoop', src: syncLoop, systemId: 'syncLoop', input },
    ],
  })).start();
  return root.system.get('syncLoop') as AnyActorRef;
}
