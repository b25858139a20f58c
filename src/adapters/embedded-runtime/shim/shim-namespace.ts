/**
 * The shim's half of a container's mount namespace (mount-namespace.ts is the runtime's): run the
 * holder, wait for its word on fd 3, then pin the namespace it made — open descriptors of
 * /proc/<holder>/ns/mnt and of its working directory, kept for the shim's life — and let the holder go.
 * The shim then starts the container with nsenter through /proc/<shim>/fd/<n>, so the container's
 * process is nsenter exec'ing the command: its own process group leader, not the holder's child, and
 * the pid the runtime records and signals, as without mounts.
 *
 * This module imports nothing from the project but shim-protocol: the detached shim uses it.
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { HOLDER_READY } from './shim-protocol.js';

export type PinnedNamespace = { ok: true; mnt: number; cwd: number } | { ok: false; error: string };

/** How long the holder may take (a mount can hang on a dead network file system). */
const HOLDER_TIMEOUT_MS = 8_000;

export function pinMountNamespace(holder: readonly string[]): Promise<PinnedNamespace> {
  const [file, ...args] = holder;
  return new Promise<PinnedNamespace>((resolve) => {
    const child = spawn(file!, args, { cwd: '/', env: {}, stdio: ['pipe', 'ignore', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => undefined); // EPIPE: the holder died first, and 'end' says so
    let said = '';
    let stderr = '';
    let settled = false;
    const settle = (result: PinnedNamespace): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!result.ok) child.kill('SIGKILL');
      resolve(result);
    };
    const timer = setTimeout(() => settle({ ok: false, error: `failed to start container: setting up its mount namespace took more than ${HOLDER_TIMEOUT_MS / 1000}s` }), HOLDER_TIMEOUT_MS);
    child.once('error', (err) => settle({ ok: false, error: `failed to start container: cannot set up its mount namespace: ${err.message}` }));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      process.stderr.write(chunk); // shim.log
    });
    const status = child.stdio[3] as Readable;
    status.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said !== `${HOLDER_READY}\n`) return;
      try {
        const mnt = openSync(`/proc/${child.pid}/ns/mnt`, 'r');
        const cwd = openSync(`/proc/${child.pid}/cwd`, 'r');
        settle({ ok: true, mnt, cwd });
      } catch (err) {
        settle({ ok: false, error: `failed to start container: cannot pin its mount namespace: ${(err as Error).message}` });
      }
      child.stdin!.end(); // the holder's `read` returns and it exits; the descriptors keep the namespace
    });
    // Wait for stderr too: a holder that could not even run its script (unshare refused) says why there.
    let ended = 0;
    const onEnd = (): void => {
      if (++ended < 2) return;
      const why = tidy(said);
      settle({
        ok: false,
        error: why.startsWith('failed to start') ? why
          : `failed to start container: ${why || `cannot set up its mount namespace: ${tidy(stderr) || 'the holder exited without a word'}`}`,
      });
    };
    status.on('end', onEnd);
    child.stderr!.on('end', onEnd);
  });
}

/** mount(8)'s messages, on one line, without its pointer to dmesg. */
export function tidy(text: string): string {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('dmesg(1) may have more information')).join('; ');
}
