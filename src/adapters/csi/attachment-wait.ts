/**
 * Waiting for a volume's VolumeAttachment to be attached before it is staged (Go v1.26:
 * csiAttacher.WaitForAttach): a failed GET fails at once (the volume machine retries), a
 * deletion or an attach error fails, anything else is read again every second until attached or
 * Go's 10 minutes are up. The answer is the attachment's metadata, NodeStage's and NodePublish's
 * publish_context.
 */
import {
  attachmentGetErrorMessage, attachmentPollMs, attachmentState, attachmentTimeoutMessage, waitForAttachTimeoutMs,
} from '../../domain/csi/attachment.js';
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { CsiObjectApi } from '../../ports/csi-objects.js';

export interface AttachmentWaitOptions {
  api: Pick<CsiObjectApi, 'getVolumeAttachment'>;
  clock: Clock;
  timeoutMs?: number;
  pollMs?: number;
}

const sleep = (clock: Clock, ms: number) => new Promise<void>((resolve) => { clock.setTimeout(() => resolve(), ms); });

export async function waitForAttachment(opts: AttachmentWaitOptions, volumeHandle: string, attachmentName: string): Promise<Record<string, string>> {
  const { clock } = opts;
  const deadline = clock.now() + (opts.timeoutMs ?? waitForAttachTimeoutMs);
  for (;;) {
    let attachment;
    try {
      attachment = await opts.api.getVolumeAttachment(attachmentName);
    } catch (error) {
      throw new KubeletError('KLT_ERR_VOLUME_MOUNT', attachmentGetErrorMessage(volumeHandle, attachmentName, (error as Error).message));
    }
    if (attachment === undefined) {
      throw new KubeletError('KLT_ERR_VOLUME_MOUNT', attachmentGetErrorMessage(volumeHandle, attachmentName, `volumeattachments.storage.k8s.io "${attachmentName}" not found`));
    }
    const state = attachmentState(attachment);
    if (state.state === 'attached') return state.publishContext;
    if (state.state === 'failed') throw new KubeletError('KLT_ERR_VOLUME_MOUNT', state.message);
    if (clock.now() >= deadline) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', attachmentTimeoutMessage(volumeHandle));
    await sleep(clock, Math.min(opts.pollMs ?? attachmentPollMs, Math.max(0, deadline - clock.now())));
  }
}
