/**
 * Kills: who asked for the pod to be killed and how it went, and each container a sync killed and
 * why. A pod's kill request reaches its worker as `pod.kill.requested` (reason `deleted`: the API
 * server's graceful deletion, with its grace period; `evicted`: an eviction, whose requester — the
 * eviction manager with the threshold it met, or the node shutdown manager — asked the syncLoop with
 * `pod.evict.requested`); the worker's killPod answers with the containers and sandbox it stopped.
 * A worker also starts a kill no one sent it: for a pod (at its start or in an update) carrying a
 * deletionTimestamp, for a pod found only in the runtime (spawned with `runtimeOnly`), and when
 * activeDeadlineSeconds passed (the only kill it decides alone). A container killed inside a sync
 * (Go's computePodActions: a failed liveness or startup probe, a changed spec) carries Go's reason
 * and message.
 */
import { isPlainObject } from '../../config/decode.js';
import type { JournalRecord } from '../../journal/record.js';
import { DeadlineExceededMessage, DeadlineExceededReason } from '../../pod/status.js';
import type { FamilyExplainer, StoryLine } from '../story.js';
import { shortId, workerResults, type JournaledStep } from '../worker-results.js';

interface EvictRequest { record: JournalRecord; requester: string; message: string }
interface ContainerKill { id: string; name: string; reason?: string; message?: string }
const isContainerKill = (value: unknown): value is ContainerKill => isPlainObject(value) && typeof value.id === 'string' && typeof value.name === 'string';

/** Who a `pod.evict.requested` came from, by its requester (the eviction manager when absent). */
const REQUESTERS: Record<string, string> = { nodeShutdown: 'node shutdown', evictionManager: 'the eviction manager' };

export const killsFamily: FamilyExplainer = (history) => {
  const worker = `pod:${history.pod.uid}`;
  const lines: StoryLine[] = [];
  let evict: EvictRequest | null = null;
  /** A kill's cause was told: a worker's own kill after it is a retry, not a new cause. */
  let told = false;
  const results = new Map(workerResults(history).map((r) => [r.record.seq, r]));
  const tell = (record: JournalRecord, text: string) => {
    lines.push({ t: record.t, family: 'kills', text, cites: [record.seq] });
    told = true;
  };
  /** A pod object carrying a deletionTimestamp: the API server's graceful deletion, its grace period on the object. */
  const tellDeletion = (record: JournalRecord, pod: unknown) => {
    const metadata = isPlainObject(pod) && isPlainObject(pod.metadata) ? pod.metadata : {};
    if (metadata.deletionTimestamp !== undefined) tell(record, `kill requested: ${KILL_REASONS.deleted} (${gracePeriod(metadata.deletionGracePeriodSeconds)})`);
  };
  for (const record of history.records) {
    const payload = isPlainObject(record.payload) ? record.payload : {};
    if (record.actor === 'syncLoop' && record.type === 'event' && record.name === 'pod.evict.requested' && payload.podUid === history.pod.uid) {
      evict = { record, requester: REQUESTERS[String(payload.requester ?? 'evictionManager')] ?? String(payload.requester), message: String(payload.message ?? '') };
      continue;
    }
    if (record.actor === 'syncLoop' && record.type === 'action' && record.name === 'spawn' && payload.child === worker) {
      const input = isPlainObject(payload.input) ? payload.input : {};
      const orphan = isPlainObject(input.runtimeOnly) ? input.runtimeOnly : null;
      if (orphan) tell(record, `kill requested: ${String(orphan.reason ?? 'orphaned')}: the pod is only in the runtime (${gracePeriod(orphan.gracePeriodSeconds)})`);
      else tellDeletion(record, input.pod);
      continue;
    }
    if (record.actor !== worker) continue;
    if (!told && record.type === 'event' && record.name === 'pod.spec.updated') {
      tellDeletion(record, payload.pod);
      continue;
    }
    if (!told && record.type === 'action' && record.name === 'spawn' && payload.src === 'killPod') {
      const input = isPlainObject(payload.input) ? payload.input : {};
      tell(record, `kill started by the pod worker: ${DeadlineExceededMessage} (${DeadlineExceededReason}, ${gracePeriod(input.gracePeriodSeconds)})`);
      continue;
    }
    if (record.type !== 'event') continue;
    if (record.name === 'pod.kill.requested') {
      told = true;
      const reason = String(payload.reason ?? 'unknown');
      const grace = gracePeriod(payload.gracePeriodSeconds);
      const from = reason === 'evicted' && evict ? evict : null;
      const text = from
        ? `kill requested by ${from.requester} (${grace})${from.message ? `: ${from.message}` : ''}`
        : `kill requested: ${KILL_REASONS[reason] ?? reason} (${grace})`;
      lines.push({ t: (from?.record ?? record).t, family: 'kills', text, cites: from ? [from.record.seq, record.seq] : [record.seq] });
      evict = null;
      continue;
    }
    if (record.name === 'xstate.error.actor.killPod') {
      lines.push({ t: record.t, family: 'kills', text: `kill failed: ${errorMessage(payload.error)}`, cites: [record.seq] });
      continue;
    }
    const result = results.get(record.seq);
    if (!result) continue;
    if (result.effect === 'killPod') lines.push({ t: record.t, family: 'kills', text: killOutcome(result.ok, result.steps), cites: [record.seq] });
    else lines.push(...containerKills(record, result.steps));
  }
  return lines;
};

const KILL_REASONS: Record<string, string> = {
  deleted: 'the pod was deleted through the API',
  'removed from its source': 'the pod was removed from its source',
};

const gracePeriod = (seconds: unknown) => (typeof seconds === 'number' ? `grace period ${seconds}s` : 'the pod\'s grace period');

function killOutcome(ok: boolean, steps: readonly JournaledStep[]): string {
  const parts = steps.map((s) => {
    const what = s.step === 'killPodSandbox' ? 'sandbox' : `container ${s.target}${s.id ? ` (${shortId(s.id)})` : ''}`;
    return s.ok ? `${what} stopped` : `${what} not stopped: ${s.error?.message ?? s.reason ?? 'error'}`;
  });
  return `${ok ? 'pod killed' : 'kill failed'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

/** The containers a sync killed, with the reason computePodActions gave. */
function containerKills(record: JournalRecord, steps: readonly JournaledStep[]): StoryLine[] {
  const output = isPlainObject(record.payload) ? record.payload.output : undefined;
  const actions = isPlainObject(output) ? output.actions : undefined;
  const planned = isPlainObject(actions) && Array.isArray(actions.containersToKill) ? actions.containersToKill.filter(isContainerKill) : [];
  return planned.map((kill) => {
    const step = steps.find((s) => s.step === 'killContainer' && (s.id === kill.id || s.target === kill.name));
    const why = [kill.reason, kill.message].filter(Boolean).join(': ');
    const outcome = !step ? 'not killed yet' : step.ok ? 'killed' : `kill failed: ${step.error?.message ?? step.reason ?? 'error'}`;
    return { t: record.t, family: 'kills' as const, text: `container ${kill.name} (${shortId(kill.id)}) ${outcome}${why ? `: ${why}` : ''}`, cites: [record.seq] };
  });
}

function errorMessage(error: unknown): string {
  return isPlainObject(error) && typeof error.message === 'string' ? error.message : 'unknown error';
}
