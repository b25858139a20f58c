/**
 * A container's termination message file and log, the effects (Go: kuberuntime_container.go
 * makeMounts, getTerminationMessage, readLastStringFromContainerLogs; the rules are in
 * domain/runtime/termination-message.ts).
 *
 * - Before the container is created: `<podDir>/containers/<name>/` (0750) and an empty file in it
 *   named by a random uint32 in hex, mode 0666 whatever the umask, so any user in the container can
 *   write it. Its path is the mount's host side.
 * - After the container has exited: the file's last 4096 bytes; and, when the rules say so, the last
 *   80 lines of the container's CRI log, rendered as `kubectl logs` would (no timestamps), cut to
 *   their last 2048 bytes.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import {
  lastBytes,
  maxTerminationMessageBytes,
  maxTerminationMessageLogBytes,
  maxTerminationMessageLogLines,
  planTerminationMessage,
  terminationLogReadError,
  terminationMessageFileName,
  terminationMessageFromFile,
  type ExitedContainerFacts,
  type TerminationFileRead,
} from '../../domain/runtime/termination-message.js';
import type { Random } from '../../ports/random.js';
import { readContainerLog } from './container-log-reader.js';
import { makeDirectories } from './make-directories.js';
import { writeSmallFile } from './small-file.js';

const podContainerDirMode = 0o750;
const terminationFileMode = 0o666;

const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/**
 * Creates the empty file in the container's directory (`<podDir>/containers/<name>`, made if
 * missing) for a container about to be created and answers its host path. Go logs a
 * failure here and starts the container without the mount; the caller decides (KLT_ERR_HOST_IO).
 */
export async function createTerminationMessageFile(dir: string, random: Random, checkDirectory: (dir: string) => Promise<void> = async () => {}): Promise<string> {
  const path = join(dir, terminationMessageFileName(random.next()));
  try {
    await makeDirectories(dir, podContainerDirMode);
    // The file is made world-writable below: only where the caller allows (below the pod's directory).
    await checkDirectory(dir);
    // The umask narrows the mode open() uses, hence the chmod. As in Go, a failed chmod still leaves
    // a usable mount (only for the container's own user), so it does not fail the start.
    await writeSmallFile(path, '', { mode: terminationFileMode, chmodBestEffort: true });
  } catch (err) {
    throw new KubeletError('KLT_ERR_HOST_IO', `error on creating termination-log file ${path}: ${(err as Error).message}`, { cause: err });
  }
  return path;
}

/** The file's last 4096 bytes (tail.ReadAtMost); a missing file and a failed read are told apart. */
export async function readTerminationMessageFile(hostPath: string): Promise<TerminationFileRead> {
  let file;
  try {
    file = await open(hostPath, 'r');
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return { kind: 'missing' };
    return { kind: 'failed', path: hostPath, error: (err as Error).message };
  }
  try {
    const { size } = await file.stat();
    const length = Math.min(size, maxTerminationMessageBytes);
    const data = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await file.read(data, done, length - done, size - length + done);
      if (bytesRead === 0) break; // shrunk meanwhile: keep what was there
      done += bytesRead;
    }
    return { kind: 'read', data: data.subarray(0, done) };
  } catch (err) {
    return { kind: 'failed', path: hostPath, error: (err as Error).message };
  } finally {
    await file.close();
  }
}

/**
 * The last 80 lines of a CRI log, as `kubectl logs` renders them (stdout and stderr together), cut
 * to their last 2048 bytes. A log that cannot be read gives Go's error text as the message.
 */
export async function readTerminationMessageFromLog(logPath: string): Promise<string> {
  const options = { follow: false, previous: false, timestamps: false, tailLines: maxTerminationMessageLogLines, limitBytes: null, sinceMs: null };
  let kept = Buffer.alloc(0);
  try {
    for await (const chunk of readContainerLog(logPath, options)) {
      // A circular buffer of 2048 bytes, as Go's circbuf: only the end survives.
      kept = Buffer.from(lastBytes(kept.length === 0 ? chunk : Buffer.concat([kept, chunk]), maxTerminationMessageLogBytes));
    }
  } catch (err) {
    return terminationLogReadError((err as Error).message);
  }
  return kept.toString('utf8');
}

/**
 * The termination message of an exited container from its runtime status, '' when there is none
 * (the runtime's own message is enriched with it: withTerminationMessage).
 */
export async function readTerminationMessage(status: ExitedContainerFacts & { log_path: string }): Promise<string> {
  const plan = planTerminationMessage(status);
  const read = plan.hostPath === undefined ? undefined : await readTerminationMessageFile(plan.hostPath);
  const { message, checkLogs } = terminationMessageFromFile(read, plan.fallbackToLogs);
  return checkLogs ? readTerminationMessageFromLog(status.log_path) : message;
}
