/**
 * Every record concerning one pod: its own actors' (`pod:<uid>`, its sync and kill effects, its
 * volumes `volume:<uid>:<name>`, its probes `probe:<uid>:…`, the status manager's patches named by
 * it), and any other record whose payload names it (a pod object with its uid, or a string holding
 * the uid: a `podUid` field, a child's id). Checkpoints are left out: they hold every pod at once
 * and tell no step of its life. Beside them, the node's labels and taints as admission saw them.
 */
import { isPodObject } from '../journal/pod-forms.js';
import type { JournalRecord } from '../journal/record.js';
import { isNodeViewRecord } from './node-view.js';
import type { PodHistory, PodIdentity } from './story.js';

export function podHistory(records: readonly JournalRecord[], pod: PodIdentity): PodHistory {
  const mentions = mentionFinder(pod.uid);
  return {
    pod,
    records: records.filter((r) => r.type !== 'checkpoint' && (r.actor.includes(pod.uid) || mentions(r.payload))),
    node: records.filter(isNodeViewRecord),
  };
}

/** Whether a payload names the uid; a shared object (a pod written by reference) is walked once. */
function mentionFinder(uid: string): (value: unknown) => boolean {
  const known = new WeakMap<object, boolean>();
  const mentions = (value: unknown): boolean => {
    if (typeof value === 'string') return value.includes(uid);
    if (typeof value !== 'object' || value === null) return false;
    const cached = known.get(value);
    if (cached !== undefined) return cached;
    let found = false;
    if (isPodObject(value)) found = (value as { metadata: { uid?: unknown } }).metadata.uid === uid;
    else if (Array.isArray(value)) found = value.some(mentions);
    else for (const k in value) if (Object.hasOwn(value, k) && mentions((value as Record<string, unknown>)[k])) { found = true; break; }
    known.set(value, found);
    return found;
  };
  return mentions;
}
