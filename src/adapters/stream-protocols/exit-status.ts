/**
 * The end of a remote command as its error channel reports it, the same for SPDY and WebSocket. From
 * v4 on (SPDY v4.channel.k8s.io, WebSocket v4/v5) the payload is a metav1.Status in JSON, as Go's
 * remotecommand server marshals it (no kind or apiVersion, `metadata` always there, empty fields left
 * out); kubectl and client-go take the exit code from its `ExitCode` cause, client-node passes the
 * object to its status callback. Earlier protocols carry only a failure's message, and nothing on
 * success.
 *
 * The words of a non-zero exit are containerd's exit error ("error executing command [argv], exit code
 * N") under Go's prefix, so a client that shows them reads what it would against containerd.
 */
import type { RemoteCommandOutcome } from './sessions.js';

export interface V4Status {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: Array<{ reason?: string; message: string }> };
  code?: number;
}

export function exitStatus(outcome: RemoteCommandOutcome): V4Status {
  if (outcome.kind === 'failed') {
    // apierrors.NewInternalError: HTTP 500 and the error as its only cause.
    return {
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${outcome.message}`,
      reason: 'InternalError',
      details: { causes: [{ message: outcome.message }] },
      code: 500,
    };
  }
  if (outcome.exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${outcome.command.join(' ')}], exit code ${outcome.exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  };
}

/** The error channel's bytes: the Status as JSON from v4 on; before, the failure's message or nothing. */
export function exitStatusPayload(outcome: RemoteCommandOutcome, statusAsJson: boolean): Buffer {
  const status = exitStatus(outcome);
  if (statusAsJson) return Buffer.from(JSON.stringify(status));
  return Buffer.from(status.status === 'Success' ? '' : status.message ?? '');
}
