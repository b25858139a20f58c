/**
 * How a remote command's end is reported on its error channel, in the Go kubelet's words, for every
 * transport (SPDY and WebSocket alike): v4 and later send a metav1.Status as JSON; the older
 * channel.k8s.io versions send only the failure's message as plain text, and nothing on success.
 *
 * The exit text is containerd's ("error executing command [sh -c …], exit code 3"), wrapped as the Go
 * remotecommand server wraps any exit error; kubectl prints neither (it reads the ExitCode cause and
 * exits with it), but clients that show the message see the same words as against containerd.
 */
import type { RemoteCommandOutcome } from './sessions.js';

/** metav1.Status as Go's encoding/json writes it: `metadata` always present, empty fields left out. */
export interface V4Status {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: Array<{ reason?: string; message: string }> };
  code?: number;
}

export function exitStatus(outcome: RemoteCommandOutcome): V4Status {
  if (outcome.kind === 'exited') {
    if (outcome.exitCode === 0) return { metadata: {}, status: 'Success' };
    return {
      metadata: {},
      status: 'Failure',
      message: `command terminated with non-zero exit code: error executing command [${outcome.command.join(' ')}], exit code ${outcome.exitCode}`,
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
    };
  }
  // Go's apierrors.NewInternalError: code 500, the error itself as the one cause.
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${outcome.message}`,
    reason: 'InternalError',
    details: { causes: [{ message: outcome.message }] },
    code: 500,
  };
}

/** The bytes for the error channel: the Status for v4 and later, the message alone (or nothing) before. */
export function exitStatusPayload(outcome: RemoteCommandOutcome, statusAsJson: boolean): Buffer {
  const status = exitStatus(outcome);
  if (statusAsJson) return Buffer.from(JSON.stringify(status));
  return Buffer.from(status.status === 'Success' ? '' : (status.message ?? ''));
}
