/**
 * Another process holding an flock(2) lock, as a second kubelet (Go or ours) would: util-linux
 * flock(1) runs a shell on the lock that says `held` and then sleeps. Resolved on that line, so the
 * lock is held from then on, with no polling.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export function holdLockElsewhere(path: string): Promise<ChildProcess> {
  // --no-fork: flock(1) execs the shell, which execs sleep, so the holder's pid is the one to kill.
  const holder = spawn('flock', ['--no-fork', path, 'sh', '-c', 'echo held; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    holder.on('error', reject);
    holder.on('exit', (code, signal) => reject(new Error(`flock(1) on ${path} ended before holding it (${String(signal ?? code)})`)));
    holder.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('held\n')) resolve(holder);
    });
  });
}
