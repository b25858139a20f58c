/**
 * Stopping and starting the CI's containerd (the lab .ci/containerd/up.sh made, KUBELET_IT_CRI_LAB):
 * for the runtime outage test. Started as up.sh starts it, in its own session with stdio on the
 * lab's log, so it outlives nothing it should not.
 */
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './daemon.js';

const pidOf = (lab: string) => Number(readFileSync(join(lab, 'containerd.pid'), 'utf8').trim());
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM, and wait until the process is gone. */
export async function stopContainerd(lab: string): Promise<void> {
  const pid = pidOf(lab);
  process.kill(pid, 'SIGTERM');
  await until('containerd to exit', () => !alive(pid), 30_000);
}

/** Starts it again on the same config and waits until its socket answers. */
export async function startContainerd(lab: string, socket: string): Promise<void> {
  const log = openSync(join(lab, 'containerd.log'), 'a');
  const child = spawn('containerd', ['--config', join(lab, 'config.toml')], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  writeFileSync(join(lab, 'containerd.pid'), `${child.pid}\n`);
  await until('containerd to answer', () => spawnSync('ctr', ['--address', socket, 'version']).status === 0, 30_000);
}
