/**
 * Containers: each container the worker started (its id), and each start that failed after its
 * image was there (Go's CreateContainerConfigError, CreateContainerError, RunContainerError,
 * PostStartHookError) with the runtime's message, each container resized in place and each resize
 * that failed or was refused (a memory limit below usage), and a sync that failed as a whole (the
 * runtime unreachable, say). Image failures are the images family's, a crash-loop back-off the restarts
 * family's.
 */
import { isPlainObject } from '../../config/decode.js';
import type { FamilyExplainer, StoryLine } from '../story.js';
import { containerStarts, resizeSteps, shortId, type JournaledStep } from '../worker-results.js';
import { IMAGE_REASONS } from './images.js';

/** Told by the restarts family. */
const BACK_OFF = 'CrashLoopBackOff';

export const containersFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  for (const { result, step } of containerStarts(history)) {
    const kind = step.step === 'startInitContainer' ? 'init container' : 'container';
    const at = { t: result.record.t, family: 'containers' as const, cites: [result.record.seq] };
    if (step.ok) lines.push({ ...at, text: `${kind} ${step.target} started${step.id ? ` (${shortId(step.id)})` : ''}` });
    else if (step.reason !== BACK_OFF && !IMAGE_REASONS.has(step.reason ?? '')) lines.push({ ...at, text: `${kind} ${step.target} failed to start: ${step.reason ?? 'error'}: ${step.error?.message ?? 'no message'}` });
  }
  for (const { result, step } of resizeSteps(history)) {
    const text = resizeText(step);
    if (text !== null) lines.push({ t: result.record.t, family: 'containers', text, cites: [result.record.seq] });
  }
  for (const record of history.records) {
    if (record.actor !== `pod:${history.pod.uid}` || record.name !== 'xstate.error.actor.syncPod') continue;
    const error = isPlainObject(record.payload) && isPlainObject(record.payload.error) ? record.payload.error : {};
    lines.push({ t: record.t, family: 'containers', text: `sync failed: ${typeof error.message === 'string' ? error.message : 'no message'}`, cites: [record.seq] });
  }
  return lines;
};

/** A resize step worth a line: a container resized, or any failure; the pod cgroup's own successes are left out. */
function resizeText(step: JournaledStep): string | null {
  const message = step.error?.message ?? 'no message';
  const resource = step.resource ? ` (${step.resource})` : '';
  if (step.step === 'updateContainerResources') return step.ok ? `container ${step.target} resized in place${resource}` : `container ${step.target} resize failed${resource}: ${message}`;
  if (step.ok) return null;
  return step.step === 'updatePodCgroup' ? `pod cgroup resize failed${resource}: ${message}` : `resize not applied: ${message}`;
}
