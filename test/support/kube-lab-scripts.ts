/**
 * Running the real control plane's scripts (../shared/lab/kube: up.sh, bootstrap-kubeconfig.sh,
 * down.sh) with KUBE_LAB naming the lab's directory, so they write nothing beside themselves. No
 * vitest import: the global setup uses it too.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { absentLabBinaries, CONTROL_PLANE_BINARIES, notBuilt } from './lab-bin.js';

/** Where up.sh and its companions are: the repository's sibling `shared/lab/kube`, or KUBELET_IT_KUBE_LAB_SCRIPTS. */
export function kubeLabScripts(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBELET_IT_KUBE_LAB_SCRIPTS || resolve('..', 'shared', 'lab', 'kube');
}

/** The kubectl the scripts and the tests run: $KUBECTL, else Debian's. */
export function kubectlBin(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBECTL ?? '/usr/bin/kubectl';
}

/** The environment the lab's scripts run in: the lab's directory and kubectl; no inherited API_PORT/ETCD_PORT. */
export function scriptEnv(dir: string): NodeJS.ProcessEnv {
  const { API_PORT: _api, ETCD_PORT: _etcd, ...rest } = process.env;
  return { ...rest, KUBE_LAB: dir, KUBECTL: kubectlBin() };
}

/** Runs `file args` to its end: its stdout, or an error naming `what` (the command line by default) with its stderr's tail. */
export function runScript(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, what = [file, ...args].join(' ')): Promise<string> {
  return new Promise((done, fail) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (!err) return done(stdout);
      const how = err.killed ? `killed after ${timeoutMs} ms` : `exit ${String(err.code ?? err.signal)}`;
      fail(new Error(`${what} failed (${how}):\n${stderr.slice(-3000)}`));
    });
  });
}

/** Stops the lab's processes and removes its directory (down.sh --purge). */
export async function purgeKubeLab(dir: string, scripts = kubeLabScripts()): Promise<void> {
  await runScript('bash', [join(scripts, 'down.sh'), '--purge'], scriptEnv(dir), 60_000);
}

/** Why the control plane cannot be brought up with `scripts`, or '' when it can: its scripts and its binaries in KUBE_LAB_BIN. */
export function controlPlaneMissing(scripts: string, env: NodeJS.ProcessEnv = process.env): string {
  const absent = absentLabBinaries(CONTROL_PLANE_BINARIES, env);
  return [
    existsSync(join(scripts, 'up.sh')) ? '' : `no real control plane's scripts in ${scripts}`,
    absent.length ? notBuilt(absent, env) : '',
  ].filter(Boolean).join('; ');
}
