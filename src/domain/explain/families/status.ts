/**
 * Status: each status the status manager sent the API server for the pod (its phase and reason,
 * whether Ready, each container's state), with the API server's answer; a patch refused, why; and
 * the pod's object deleted from the API server once it was done (Go's status manager does both).
 */
import { isPlainObject } from '../../config/decode.js';
import type { ContainerStatus, PodStatus } from '../../pod/types.js';
import type { JournalRecord } from '../../journal/record.js';
import type { FamilyExplainer, StoryLine } from '../story.js';

interface Sent { record: JournalRecord; effectId: string; kind: string; status?: PodStatus }

export const statusFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  const sent = new Map<string, { line: StoryLine; sent: Sent }>();
  for (const record of history.records) {
    if (record.actor !== 'statusManager') continue;
    const payload = isPlainObject(record.payload) ? record.payload : {};
    const spawned = record.type === 'action' && record.name === 'spawn' ? sentEffect(record, payload) : undefined;
    if (spawned && (spawned.kind === 'patchPodStatus' || spawned.kind === 'deletePod')) {
      const line: StoryLine = { t: record.t, family: 'status', text: spawned.kind === 'deletePod' ? 'pod object deleted from the API server' : `status sent: ${statusText(spawned.status ?? {})}`, cites: [record.seq] };
      lines.push(line);
      sent.set(spawned.effectId, { line, sent: spawned });
      continue;
    }
    if (record.type !== 'event' || record.name !== 'effect.answered' || typeof payload.id !== 'string') continue;
    const at = sent.get(payload.id);
    const output = isPlainObject(payload.output) ? payload.output : {};
    if (!at) continue;
    at.line.cites = [...at.line.cites, record.seq];
    if (output.ok !== true) {
      const error = isPlainObject(output.error) && typeof output.error.message === 'string' ? output.error.message : 'no message';
      lines.push({ t: record.t, family: 'status', text: `${at.sent.kind === 'deletePod' ? 'deleting the pod object' : 'the status patch'} failed: ${error}`, cites: [record.seq] });
    }
  }
  return lines;
};

function sentEffect(record: JournalRecord, payload: Record<string, unknown>): Sent | undefined {
  const input = isPlainObject(payload.input) ? payload.input : undefined;
  if (!input || typeof payload.child !== 'string' || typeof input.kind !== 'string') return undefined;
  const patch = isPlainObject(input.patch) ? input.patch : {};
  return {
    record,
    // The answer names the effect by the child's id without the parent's prefix.
    effectId: payload.child.slice(payload.child.indexOf('/') + 1),
    kind: input.kind,
    ...(isPlainObject(patch.status) ? { status: patch.status as PodStatus } : {}),
  };
}

/** `Pending; Ready=False (ContainersNotReady); main waiting (ErrImagePull)`. */
export function statusText(status: PodStatus): string {
  const parts: string[] = [];
  parts.push(`${status.phase ?? '(phase unchanged)'}${status.reason ? ` (${status.reason})` : ''}`);
  const ready = status.conditions?.find((c) => c.type === 'Ready');
  if (ready) parts.push(`Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}`);
  const containers = [
    ...(status.initContainerStatuses ?? []).map((c) => `init ${containerText(c)}`),
    ...(status.containerStatuses ?? []).map(containerText),
  ];
  if (containers.length > 0) parts.push(containers.join(', '));
  return parts.join('; ');
}

function containerText(c: ContainerStatus): string {
  const s = c.state ?? {};
  if (s.running) return `${c.name} running${c.ready ? '' : ', not ready'}`;
  if (s.terminated) return `${c.name} terminated (${s.terminated.reason ?? 'no reason'}, exit code ${s.terminated.exitCode})`;
  if (s.waiting) return `${c.name} waiting${s.waiting.reason ? ` (${s.waiting.reason})` : ''}`;
  return `${c.name} (no state)`;
}
