/**
 * A container's termination message, the pure parts (Go: kuberuntime_container.go makeMounts,
 * getTerminationMessage, readLastStringFromContainerLogs, convertToKubeContainerStatus; the limits
 * from pkg/kubelet/container/runtime.go).
 *
 * Before a container starts, the kubelet creates an empty file `<podDir>/containers/<name>/<id>` (domain/pod/pod-paths.ts)
 * (the id random, so each instance of the container has its own) and bind-mounts it at the
 * container's terminationMessagePath. When the container has exited, the kubelet finds that mount
 * again in the runtime's ContainerStatus (by its container path) and reads the file's last 4096
 * bytes. With the FallbackToLogsOnError policy, a container that failed (non-zero exit, and not
 * "ContainerCannotRun") and left the file empty or absent gets the last 80 lines of its log
 * instead, at most their last 2048 bytes. The message is appended to the runtime's own message.
 *
 * The effects (create, read, read the log) are in src/adapters/fs/termination-message-file.ts.
 */
import type { Container } from '../pod/types.js';
import { makeAbsolutePath } from './absolute-path.js';
import type { CriMount } from './cri-config.js';
import { containerInfoFromRuntime, defaultTerminationMessagePath } from './labels.js';

export { defaultTerminationMessagePath };

/** The bytes read from the file: its end, when it is longer (MaxContainerTerminationMessageLength). */
export const maxTerminationMessageBytes = 4096;
/** The bytes kept from the log: the end of what the tail renders (MaxContainerTerminationMessageLogLength). */
export const maxTerminationMessageLogBytes = 2048;
/** The log lines read (MaxContainerTerminationMessageLogLines). */
export const maxTerminationMessageLogLines = 80;

/** A container that never ran has no logs worth reading. */
export const containerCannotRunReason = 'ContainerCannotRun';

/** The path in the container; '' means no termination message file at all. */
export function terminationMessagePath(container: Container): string {
  return container.terminationMessagePath ?? defaultTerminationMessagePath;
}

/** The file's name from a draw in [0, 1): a uint32 in 8 hex digits, as Go's makeUID. */
export function terminationMessageFileName(draw: number): string {
  return Math.floor(draw * 2 ** 32).toString(16).padStart(8, '0');
}

/**
 * The mount of the file into the container: writable, relabeled when SELinux is on. Both paths are
 * made absolute and clean, as Go does (so `dev//termination-log` is mounted at /dev/termination-log).
 */
export function terminationMessageMount(hostPath: string, containerPath: string, selinuxEnabled: boolean): CriMount {
  return {
    container_path: makeAbsolutePath(containerPath),
    host_path: makeAbsolutePath(hostPath),
    readonly: false,
    selinux_relabel: selinuxEnabled,
    propagation: 'PROPAGATION_PRIVATE',
  };
}

/** The end of `data`, at most `max` bytes (Go's tail.ReadAtMost keeps the end; so does a circular buffer). */
export function lastBytes(data: Uint8Array, max: number): Uint8Array {
  return data.length <= max ? data : data.subarray(data.length - max);
}

/** The part of a runtime ContainerStatus this reads (runtime.v1 field names). */
export interface ExitedContainerFacts {
  exit_code: number;
  reason: string;
  annotations: Record<string, string>;
  mounts: readonly Pick<CriMount, 'container_path' | 'host_path'>[];
}

/** FallbackToLogsOnError applies to a container that failed after it could run. */
export function shouldFallbackToLogs(policy: string, exitCode: number, reason: string): boolean {
  return policy === 'FallbackToLogsOnError' && exitCode !== 0 && reason !== containerCannotRunReason;
}

/** The host path of the mount at `containerPath` (made absolute, as when it was mounted) among a status's mounts. */
export function findTerminationMessageFile(mounts: ExitedContainerFacts['mounts'], containerPath: string): string | undefined {
  const wanted = makeAbsolutePath(containerPath);
  return mounts.find((m) => m.container_path === wanted)?.host_path;
}

/**
 * What to do for an exited container: which file to read (none when the container had no
 * termination message path, or the runtime reports no mount there) and whether the log may stand
 * in. The path and policy come from the container's annotations, as Go reads them back.
 */
export interface TerminationMessagePlan {
  hostPath?: string;
  fallbackToLogs: boolean;
}

export function planTerminationMessage(status: ExitedContainerFacts): TerminationMessagePlan {
  const info = containerInfoFromRuntime({}, status.annotations);
  const fallbackToLogs = shouldFallbackToLogs(info.terminationMessagePolicy, status.exit_code, status.reason);
  const hostPath = info.terminationMessagePath === '' ? undefined : findTerminationMessageFile(status.mounts, info.terminationMessagePath);
  return hostPath === undefined ? { fallbackToLogs } : { hostPath, fallbackToLogs };
}

/** How reading the file went. */
export type TerminationFileRead =
  | { kind: 'read'; data: Uint8Array }
  | { kind: 'missing' }
  | { kind: 'failed'; path: string; error: string };

/**
 * The message from the file, and whether the log should be read instead (getTerminationMessage):
 * a file that is missing, or empty under the fallback, sends us to the log; a file that cannot be
 * read gives an error message of its own and no fallback.
 */
export function terminationMessageFromFile(read: TerminationFileRead | undefined, fallbackToLogs: boolean): { message: string; checkLogs: boolean } {
  if (read === undefined || read.kind === 'missing') return { message: '', checkLogs: fallbackToLogs };
  if (read.kind === 'failed') return { message: `Error on reading termination log ${read.path}: ${read.error}`, checkLogs: false };
  const data = lastBytes(read.data, maxTerminationMessageBytes);
  return { message: new TextDecoder().decode(data), checkLogs: fallbackToLogs && data.length === 0 };
}

/** The message when the log could not be read. */
export function terminationLogReadError(error: string): string {
  return `Error on reading termination message from logs: ${error}`;
}

/** The runtime's message enriched with the termination message (`<runtime message>: <message>`). */
export function withTerminationMessage(runtimeMessage: string, terminationMessage: string): string {
  if (terminationMessage === '') return runtimeMessage;
  return runtimeMessage === '' ? terminationMessage : `${runtimeMessage}: ${terminationMessage}`;
}
