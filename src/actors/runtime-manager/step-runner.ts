/** Runs one step of a sync: timed on the injected clock, a rejection turned into a failed step. */
import type { Pod } from '../../domain/pod/types.js';
import type { Clock } from '../../ports/clock.js';
import type { SyncStep, SyncStepResult } from '../../ports/runtime-manager.js';
import { failure } from './sync-result.js';

export async function runStep<T>(
  clock: Clock,
  step: SyncStep,
  target: string,
  /** The reason a failure without a more specific code is shown under; a function when it depends on how far the work got. */
  fallbackReason: string | (() => string),
  work: () => Promise<T>,
): Promise<{ result: SyncStepResult; value?: T }> {
  const started = clock.now();
  try {
    const value = await work();
    return { result: { step, target, ok: true, durationMs: clock.now() - started }, value };
  } catch (err) {
    const reason = typeof fallbackReason === 'function' ? fallbackReason() : fallbackReason;
    return { result: { step, target, ok: false, ...failure(err, reason), durationMs: clock.now() - started } };
  }
}

/** "namespace/name", the way logs and results name a pod. */
export function podRef(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}
