/**
 * A process's exit status as CRI reports it: the exit code, or 128 + the signal's number when a signal
 * ended it (137 for SIGKILL, 143 for SIGTERM), the shell convention runc and containerd follow.
 *
 * This module imports nothing from the project: the detached shim uses it too.
 */
import { constants } from 'node:os';

/** Used when the status is lost (no exit code, no known signal), containerd's unknownExitCode. */
export const UNKNOWN_EXIT_CODE = 255;

export function exitCodeFor(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return number === undefined ? UNKNOWN_EXIT_CODE : 128 + number;
}
