/**
 * ExecSync for host-process containers: run the command with the container's environment and working
 * directory, collect stdout and stderr as bytes, and enforce the CRI timeout (seconds, 0 = none) by
 * killing the command's whole process group and answering DEADLINE_EXCEEDED, as containerd does.
 */
import { spawn } from 'node:child_process';
import { KubeletError } from '../../../domain/errors.js';
import type { ExecSyncResponse__Output as ExecSyncResponse } from '../../../generated/runtime/v1/ExecSyncResponse.js';
import { exitCodeFor } from '../shim/exit-code.js';

/** Each stream is cut here: a probe's output is small, a runaway command must not exhaust our memory. */
export const MAX_EXEC_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface ExecSyncInput {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutSeconds: number;
  uid?: number;
  gid?: number;
}

export function runExecSync(input: ExecSyncInput): Promise<ExecSyncResponse> {
  const [file, ...args] = input.argv;
  if (file === undefined) return Promise.reject(new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'exec command must not be empty'));
  return new Promise<ExecSyncResponse>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: input.cwd,
      env: input.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(input.uid !== undefined ? { uid: input.uid } : {}),
      ...(input.gid !== undefined ? { gid: input.gid } : {}),
    });
    const stdout = new BoundedBuffer();
    const stderr = new BoundedBuffer();
    let timedOut = false;
    const timer = input.timeoutSeconds > 0
      ? setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, input.timeoutSeconds * 1000)
      : undefined;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (err) => {
      if (timer) clearTimeout(timer);
      reject(new KubeletError('KLT_ERR_CRI_FAILED', `failed to exec in container: ${err.message}`, { cause: err }));
    });
    child.once('exit', () => killGroup(child.pid)); // like the end of a container's exec: no stragglers
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) {
        reject(new KubeletError('KLT_ERR_CRI_DEADLINE', `command ${JSON.stringify(input.argv)} timed out after ${input.timeoutSeconds}s`));
        return;
      }
      resolve({ stdout: stdout.bytes(), stderr: stderr.bytes(), exit_code: exitCodeFor(code, signal) });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

class BoundedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  push(chunk: Buffer): void {
    const room = MAX_EXEC_OUTPUT_BYTES - this.size;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
