/**
 * Containerd labs of the project's .ci/containerd/up.sh: a private one brought up and torn down
 * (the conformance run's, or a suite's that needs containerd 1.7), and stopping and starting the
 * CI's (KUBELET_IT_CRI_LAB) for the runtime outage test. Started again as up.sh starts it, in its
 * own session with stdio on the lab's log, so it outlives nothing it should not.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { until } from './daemon.js';
import { runScript } from './kube-lab-scripts.js';

export interface PrivateContainerd {
  /** unix:// socket */
  endpoint: string;
  lab: string;
  /** Where the kubelets put pods (their cgroupRoot); down.sh removes what is left under it. */
  cgroupParent: string;
  /** The CDI spec directory containerd reads (CONTAINERD_RELEASE=trixie only). */
  cdiSpecDir?: string;
}

/**
 * up.sh with `env` (LAB, BRIDGE, POD_SUBNET, CGROUP_PARENT, CNI_NETWORK, CONTAINERD_RELEASE, ...):
 * a lab beside CI's needs a bridge, subnet, cgroup parent and network name of its own.
 */
export async function upPrivateContainerd(env: NodeJS.ProcessEnv): Promise<PrivateContainerd> {
  const out = await runScript('bash', [resolve('.ci/containerd/up.sh')], env, 300_000);
  const exported = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const endpoint = exported.KUBELET_IT_CRI;
  const lab = exported.KUBELET_IT_CRI_LAB;
  if (!endpoint || !lab) throw new Error(`.ci/containerd/up.sh printed no KUBELET_IT_CRI or KUBELET_IT_CRI_LAB:\n${out}`);
  const cdiSpecDir = exported.KUBELET_IT_CRI_CDI_SPEC_DIR;
  return { endpoint, lab, cgroupParent: exported.KUBELET_IT_CRI_CGROUP_PARENT ?? env.CGROUP_PARENT!, ...(cdiSpecDir ? { cdiSpecDir } : {}) };
}

/** down.sh: the lab's containerd, containers, shims, mounts, bridge and cgroups gone. */
export async function downPrivateContainerd(lab: string): Promise<void> {
  await runScript('bash', [resolve('.ci/containerd/down.sh'), lab], process.env, 120_000);
}

/** The directory of the containerd binary the lab runs (up.sh writes it), with its ctr and shims. */
function binDir(lab: string): string {
  const file = join(lab, 'containerd.bin');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
}

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
  const bin = binDir(lab);
  const path = bin ? `${bin}:${process.env.PATH ?? ''}` : process.env.PATH;
  const child = spawn(bin ? join(bin, 'containerd') : 'containerd', ['--config', join(lab, 'config.toml')], { detached: true, stdio: ['ignore', log, log], env: { ...process.env, PATH: path } });
  child.unref();
  writeFileSync(join(lab, 'containerd.pid'), `${child.pid}\n`);
  await until('containerd to answer', () => spawnSync(bin ? join(bin, 'ctr') : 'ctr', ['--address', socket, 'version']).status === 0, 30_000);
}
