/**
 * A VolumeAttachment's status as the kubelet waits on it before staging a volume of a driver that
 * requires attach (Go v1.26: csi_attacher.go WaitForAttach and verifyAttachmentStatus): attached,
 * not yet, or failed for good (being deleted, or the attacher reported an error).
 */
export interface VolumeAttachmentObject {
  metadata?: { name?: string; deletionTimestamp?: string };
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string>; attachError?: { message?: string } };
}

export type AttachmentState =
  | { state: 'attached'; publishContext: Record<string, string> }
  | { state: 'pending' }
  | { state: 'failed'; message: string };

export function attachmentState(attachment: VolumeAttachmentObject): AttachmentState {
  if (attachment.metadata?.deletionTimestamp) return { state: 'failed', message: 'volume attachment is being deleted' };
  if (attachment.status?.attached === true) return { state: 'attached', publishContext: { ...(attachment.status.attachmentMetadata ?? {}) } };
  const attachError = attachment.status?.attachError;
  if (attachError) return { state: 'failed', message: attachError.message ?? '' };
  return { state: 'pending' };
}

/** The operation executor's waitForAttachTimeout. */
export const waitForAttachTimeoutMs = 10 * 60_000;
/** How often the status is read again while waiting (Go watches; we poll, see docs/DIFFERENCES.md). */
export const attachmentPollMs = 1_000;

export const attachmentGetErrorMessage = (volumeHandle: string, attachmentName: string, error: string) =>
  `volume ${volumeHandle} has GET error for volume attachment ${attachmentName}: ${error}`;
export const attachmentTimeoutMessage = (volumeHandle: string) => `attachment timeout for volume ${volumeHandle}`;
