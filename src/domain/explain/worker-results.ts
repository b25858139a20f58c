/**
 * What a pod's worker journaled of its effects, read back: each syncPod and killPod answer
 * (`xstate.done.actor.syncPod` / `.killPod` on `pod:<uid>`) with its steps, and each failure
 * (`xstate.error.actor.*`). The shapes are the runtime manager's results as the journal holds them
 * (src/ports/runtime-manager.ts); they are read defensively, since a log may come from another build.
 */
import { isPlainObject } from '../config/decode.js';
import type { JournalRecord } from '../journal/record.js';
import type { PodHistory } from './story.js';

export interface JournaledStep {
  step: string;
  target: string;
  ok: boolean;
  reason?: string;
  error?: { code?: string; message?: string };
  id?: string;
  pulledWith?: string;
  /** The resource an in-place resize step changed. */
  resource?: string;
}

/** A step as every build journals one: what it did, to what, and whether it worked. */
export function isJournaledStep(value: unknown): value is JournaledStep {
  return isPlainObject(value) && typeof value.step === 'string' && typeof value.target === 'string' && typeof value.ok === 'boolean';
}

export interface JournaledPodActions {
  killPod?: boolean;
  createSandbox?: boolean;
  attempt?: number;
  containersToStart?: string[];
  initContainersToStart?: string[];
}

export interface WorkerResult {
  record: JournalRecord;
  effect: 'syncPod' | 'killPod';
  ok: boolean;
  steps: JournaledStep[];
  actions?: JournaledPodActions;
  blocked?: { reason: string; message: string };
}

/** The worker's syncPod and killPod answers, in journal order. */
export function workerResults(history: PodHistory): WorkerResult[] {
  const worker = `pod:${history.pod.uid}`;
  const results: WorkerResult[] = [];
  for (const record of history.records) {
    if (record.actor !== worker || record.type !== 'event') continue;
    const effect = record.name === 'xstate.done.actor.syncPod' ? 'syncPod' : record.name === 'xstate.done.actor.killPod' ? 'killPod' : null;
    const output = isPlainObject(record.payload) ? record.payload.output : undefined;
    if (effect === null || !isPlainObject(output)) continue;
    results.push({
      record,
      effect,
      ok: output.ok === true,
      steps: Array.isArray(output.steps) ? output.steps.filter(isJournaledStep) : [],
      ...(isPlainObject(output.actions) ? { actions: output.actions as JournaledPodActions } : {}),
      ...(isPlainObject(output.blocked) ? { blocked: output.blocked as { reason: string; message: string } } : {}),
    });
  }
  return results;
}

/** A container or sandbox id as people read it: its first 12 characters. */
export const shortId = (id: string): string => id.slice(0, 12);

const START_STEPS: ReadonlySet<string> = new Set(['startContainer', 'startInitContainer']);

/** Each container start the worker's syncs journaled, with the answer it came in. */
export function containerStarts(history: PodHistory): { result: WorkerResult; step: JournaledStep }[] {
  return workerResults(history).flatMap((result) => result.steps.filter((step) => START_STEPS.has(step.step)).map((step) => ({ result, step })));
}

const RESIZE_STEPS: ReadonlySet<string> = new Set(['resizePodInPlace', 'updatePodCgroup', 'updateContainerResources']);

/** Each step of the in-place resizes the worker's syncs journaled, with the answer it came in. */
export function resizeSteps(history: PodHistory): { result: WorkerResult; step: JournaledStep }[] {
  return workerResults(history).flatMap((result) => result.steps.filter((step) => RESIZE_STEPS.has(step.step)).map((step) => ({ result, step })));
}
