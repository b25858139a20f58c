/**
 * The shutdown delay lock, held by systemd's own `systemd-inhibit`.
 *
 * logind's Inhibit answers with a file descriptor, and the lock lasts while any copy of it is open.
 * Node's sockets cannot receive descriptors (no SCM_RIGHTS), so the kubelet cannot hold one itself.
 * `systemd-inhibit --mode=delay` makes the same Inhibit call (same what, who, why, mode, same bus:
 * sd-bus reads DBUS_SYSTEM_BUS_ADDRESS) and holds the descriptor while its command runs. Its command
 * here announces the lock on stdout and then reads the kubelet's pipe until end of file: closing
 * that pipe releases the lock, and so does the kubelet's death, as when Go's process exits with the
 * descriptor open. The difference from Go: logind records systemd-inhibit's pid, not the kubelet's.
 */
import { spawn } from 'node:child_process';
import { KubeletError } from '../../domain/errors.js';
import type { InhibitLock } from '../../ports/logind.js';

/** Go's InhibitShutdown arguments. */
export const INHIBIT_WHAT = 'shutdown';
export const INHIBIT_WHO = 'kubelet';
export const INHIBIT_WHY = 'Kubelet needs time to handle node shutdown';
export const INHIBIT_MODE = 'delay';

const LOCKED = 'locked';

export interface InhibitCommandOptions {
  /** The bus to take the lock on (passed as DBUS_SYSTEM_BUS_ADDRESS). */
  address: string;
  command?: string;
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
}

export function inhibitShutdownWithCommand(options: InhibitCommandOptions): Promise<InhibitLock> {
  const command = options.command ?? 'systemd-inhibit';
  const child = spawn(
    command,
    [`--what=${INHIBIT_WHAT}`, `--who=${INHIBIT_WHO}`, `--why=${INHIBIT_WHY}`, `--mode=${INHIBIT_MODE}`, 'sh', '-c', `echo ${LOCKED}; exec cat >/dev/null`],
    { env: { ...(options.env ?? process.env), DBUS_SYSTEM_BUS_ADDRESS: options.address }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise<InhibitLock>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (message: string, cause?: unknown) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new KubeletError('KLT_ERR_DBUS_CALL', `failed creating systemd inhibitor: ${message}`, cause === undefined ? {} : { cause }));
    };
    const timer = setTimeout(() => fail(`${command} did not take the lock in ${options.timeoutMs ?? 5_000} ms`), options.timeoutMs ?? 5_000);
    child.once('error', (err) => fail(`cannot run ${command}: ${err.message}`, err));
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes(LOCKED)) return;
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({
        release: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
    child.once('close', (code) => {
      if (!stdout.includes(LOCKED)) fail(stderr.trim() || `${command} exited with ${code}`);
    });
    // The pipe breaks when the lock's holder is gone; release() waits for that exit.
    child.stdin.on('error', () => {});
  });
}
