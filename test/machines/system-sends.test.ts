import type { AnyActorRef, EventObject } from 'xstate';
import { describe, expect, it } from 'vitest';
import { sendToSystem, sendToSystemIfRunning } from '../../src/machines/system-sends.js';

/** A queue that records the sends and a system that knows only `syncLoop`. */
function fakes() {
  const sent: { to: AnyActorRef; event: EventObject }[] = [];
  const syncLoop = { id: 'syncLoop' } as unknown as AnyActorRef;
  const enqueue = { sendTo: (to: AnyActorRef, event: EventObject) => void sent.push({ to, event }) };
  const system = { get: (id: string) => (id === 'syncLoop' ? syncLoop : undefined) };
  return { sent, syncLoop, enqueue, system };
}

describe('sends to system actors', () => {
  it('sends to the actor registered under the id', () => {
    const f = fakes();
    sendToSystem(f.enqueue, f.system, 'syncLoop', { type: 'pod.config.sourcesReady' });
    sendToSystemIfRunning(f.enqueue, f.system, 'syncLoop', { type: 'pod.config.sourcesReady' });
    expect(f.sent).toEqual([
      { to: f.syncLoop, event: { type: 'pod.config.sourcesReady' } },
      { to: f.syncLoop, event: { type: 'pod.config.sourcesReady' } },
    ]);
  });

  it('throws, naming the id and the event, when an actor it relies on is not running', () => {
    const f = fakes();
    expect(() => sendToSystem(f.enqueue, f.system, 'evictionManager', { type: 'runtime.up' }))
      .toThrow("no actor is registered as 'evictionManager' to receive 'runtime.up'");
    expect(f.sent).toEqual([]);
  });

  it('skips the send when the caller expects the actor may be absent', () => {
    const f = fakes();
    sendToSystemIfRunning(f.enqueue, f.system, 'nodeStatus', { type: 'node.pleg.health', healthy: true, observedAtMs: 0 });
    expect(f.sent).toEqual([]);
  });
});
