/**
 * The generic PLEG's comparison of two relists (pkg/kubelet/pleg/generic.go computeEvents /
 * generateEvents): each container and sandbox of a pod, old or new, is reduced to running, exited,
 * unknown or non-existent, and a change becomes past-tense events:
 *   → running: ContainerStarted; → exited: ContainerDied; → unknown: ContainerChanged;
 *   → gone: ContainerRemoved, preceded by ContainerDied unless it was already seen exited.
 * Created containers count as unknown (the kubelet does not use "created" yet), sandboxes as
 * containers (ready → running, not ready → exited), as Go does.
 *
 * Order is deterministic (Go's is map order): pods by uid; within a pod the old record's containers
 * then sandboxes, then new ones not seen before.
 */
import type { RelistPod } from './relist.js';

export type PlegEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged';

export interface PlegEvent {
  podUid: string;
  type: PlegEventType;
  /** The container (or sandbox) id. */
  containerId: string;
}

type PlegState = 'running' | 'exited' | 'unknown' | 'nonExistent';

function containerStates(pod: RelistPod | undefined): Map<string, PlegState> {
  const states = new Map<string, PlegState>();
  if (!pod) return states;
  for (const c of pod.containers) states.set(c.id, c.state === 'running' ? 'running' : c.state === 'exited' ? 'exited' : 'unknown');
  for (const s of pod.sandboxes) if (!states.has(s.id)) states.set(s.id, s.state === 'ready' ? 'running' : 'exited');
  return states;
}

function eventsFor(podUid: string, containerId: string, oldState: PlegState, newState: PlegState): PlegEvent[] {
  if (oldState === newState) return [];
  const event = (type: PlegEventType): PlegEvent => ({ podUid, type, containerId });
  switch (newState) {
    case 'running':
      return [event('ContainerStarted')];
    case 'exited':
      return [event('ContainerDied')];
    case 'unknown':
      return [event('ContainerChanged')];
    case 'nonExistent':
      return oldState === 'exited' ? [event('ContainerRemoved')] : [event('ContainerDied'), event('ContainerRemoved')];
  }
}

/** Events between the previous relist (empty before the first) and this one. */
export function diffRelists(previous: readonly RelistPod[], current: readonly RelistPod[]): PlegEvent[] {
  const oldByUid = new Map(previous.map((p) => [p.uid, p]));
  const newByUid = new Map(current.map((p) => [p.uid, p]));
  const uids = [...new Set([...oldByUid.keys(), ...newByUid.keys()])].sort();
  const events: PlegEvent[] = [];
  for (const uid of uids) {
    const oldStates = containerStates(oldByUid.get(uid));
    const newStates = containerStates(newByUid.get(uid));
    const ids = [...new Set([...oldStates.keys(), ...newStates.keys()])];
    for (const id of ids) {
      events.push(...eventsFor(uid, id, oldStates.get(id) ?? 'nonExistent', newStates.get(id) ?? 'nonExistent'));
    }
  }
  return events;
}

/**
 * The events the PLEG hands on: ContainerChanged is dropped, as Go's relist drops it ("not
 * reliable and no other components use yet").
 */
export function reportableEvents(events: readonly PlegEvent[]): PlegEvent[] {
  return events.filter((e) => e.type !== 'ContainerChanged');
}
