/**
 * The pod sandbox: created (its id), created again after the old one died or changed (Go's
 * SandboxChanged, attempt N), and a creation or network set-up that failed (Go's
 * FailedCreatePodSandBox), with the runtime's message. Stopping it at the end is the kills family's.
 */
import type { FamilyExplainer, StoryLine } from '../story.js';
import { shortId, workerResults } from '../worker-results.js';

export const sandboxFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  for (const result of workerResults(history)) {
    if (result.effect !== 'syncPod') continue;
    const at = { t: result.record.t, family: 'sandbox' as const, cites: [result.record.seq] };
    const attempt = result.actions?.attempt ?? 0;
    for (const step of result.steps) {
      if (step.step === 'createPodSandbox' && step.ok) {
        const id = step.id ? ` (${shortId(step.id)})` : '';
        lines.push({ ...at, text: attempt > 0 ? `sandbox created again${id}, attempt ${attempt}: the previous one had stopped or changed` : `sandbox created${id}` });
      } else if ((step.step === 'createPodSandbox' || step.step === 'configPodSandbox') && !step.ok) {
        lines.push({ ...at, text: `FailedCreatePodSandBox: ${step.error?.message ?? step.reason ?? 'no message'}` });
      }
    }
    if (result.blocked) lines.push({ ...at, text: `cannot run on this node: ${result.blocked.reason}: ${result.blocked.message}` });
  }
  return lines;
};
