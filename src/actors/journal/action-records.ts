/**
 * What a machine decided, beyond its next state: XState's own action records (`@xstate.action`
 * inspection events) for the built-in actions that reach outside the machine's context, turned into
 * journal `action` records. Replay regenerates them and compares them like any derived record, so a
 * machine that asks an effect for something else (another input), waits another time (another
 * delay), or calls off, sends or emits something else diverges where it does so.
 *
 * Assignments and our own named actions are not recorded: their effect on the context shows in the
 * inputs, delays and states that follow. The params read here are the resolved params XState hands
 * to the inspection stream; test/actors/journal/action-records.test.ts pins their shapes, so an
 * XState upgrade that changes them fails a test instead of silently recording less.
 */
import type { AnyActorRef } from 'xstate';
import { logicNameOf } from './actor-facts.js';

export interface ActionRecord {
  /** spawn | stop | schedule | cancel | send | raise | emit */
  name: string;
  payload: Record<string, unknown>;
}

type EventLike = { type: string } & Record<string, unknown>;

/** The journal record for one executed action, or null for the actions not recorded. */
export function actionRecordOf(
  action: { type: string; params?: unknown },
  stableId: (ref: AnyActorRef) => string,
): ActionRecord | null {
  const params = (action.params ?? {}) as Record<string, unknown>;
  switch (action.type) {
    case 'xstate.spawnChild': {
      const child = params['actorRef'] as AnyActorRef | undefined;
      if (!child) return null; // a src the machine does not know: XState spawns nothing
      const src = params['src'];
      return { name: 'spawn', payload: { child: stableId(child), src: typeof src === 'string' ? src : logicNameOf(child), input: params['input'] ?? null } };
    }
    case 'xstate.stopChild': {
      // stopChild's resolved params are the child itself (undefined when it was already gone).
      const child = action.params as AnyActorRef | undefined;
      return child ? { name: 'stop', payload: { child: stableId(child) } } : null;
    }
    case 'xstate.raise':
      return typeof params['delay'] === 'number'
        ? { name: 'schedule', payload: { event: eventOf(params['event']), delay: params['delay'], id: params['id'] ?? null } }
        : { name: 'raise', payload: { event: eventOf(params['event']) } };
    case 'xstate.sendTo': {
      const to = params['to'];
      const payload: Record<string, unknown> = {
        to: typeof to === 'string' ? to : to ? stableId(to as AnyActorRef) : null,
        event: eventOf(params['event']),
      };
      if (typeof params['delay'] === 'number') Object.assign(payload, { delay: params['delay'], id: params['id'] ?? null });
      return { name: 'send', payload };
    }
    case 'xstate.cancel':
      return { name: 'cancel', payload: { id: params['sendId'] ?? null } };
    case 'xstate.emit':
      return { name: 'emit', payload: { event: eventOf(params['event']) } };
    default:
      return null;
  }
}

function eventOf(value: unknown): EventLike | null {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' ? (value as EventLike) : null;
}
