/**
 * Images: each container start that failed on its image, with Go's reason (ErrImagePull,
 * ImagePullBackOff, ErrImageNeverPull, InvalidImageName, ImageInspectError) and the registry's or
 * runtime's answer as the pull reported it; and an image pulled with credentials, which ones (their
 * source, never their values). A back-off retried again and again is folded by the story.
 */
import type { FamilyExplainer, StoryLine } from '../story.js';
import { containerStarts } from '../worker-results.js';

export const IMAGE_REASONS: ReadonlySet<string> = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName', 'ImageInspectError']);

export const imagesFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  for (const { result, step } of containerStarts(history)) {
    const at = { t: result.record.t, family: 'images' as const, cites: [result.record.seq] };
    if (!step.ok && IMAGE_REASONS.has(step.reason ?? '')) lines.push({ ...at, text: `container ${step.target}: ${step.reason}: ${step.error?.message ?? 'no message'}` });
    else if (step.pulledWith !== undefined) lines.push({ ...at, text: `container ${step.target}: image pulled with the credentials of ${step.pulledWith}` });
  }
  return lines;
};
