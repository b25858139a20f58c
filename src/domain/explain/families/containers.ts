/**
 * Containers: each container the worker started (its id), and each start that failed after its
 * image was there (Go's CreateContainerConfigError, CreateContainerError, RunContainerError,
 * PostStartHookError) with the runtime's message. Image failures are the images family's, a
 * crash-loop back-off the restarts family's.
 */
import type { FamilyExplainer, StoryLine } from '../story.js';
import { shortId, workerResults } from '../worker-results.js';
import { IMAGE_REASONS } from './images.js';

const START_STEPS = new Set(['startContainer', 'startInitContainer']);
/** Told by the restarts family. */
const BACK_OFF = 'CrashLoopBackOff';

export const containersFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  for (const result of workerResults(history)) {
    for (const step of result.steps) {
      if (!START_STEPS.has(step.step)) continue;
      const kind = step.step === 'startInitContainer' ? 'init container' : 'container';
      const cite = { t: result.record.t, family: 'containers' as const, cites: [result.record.seq] };
      if (step.ok) lines.push({ ...cite, text: `${kind} ${step.target} started${step.id ? ` (${shortId(step.id)})` : ''}` });
      else if (step.reason !== BACK_OFF && !IMAGE_REASONS.has(step.reason ?? '')) lines.push({ ...cite, text: `${kind} ${step.target} failed to start: ${step.reason ?? 'error'}: ${step.error?.message ?? 'no message'}` });
    }
  }
  return lines;
};
