/**
 * The upstream binaries the lab runs (the control plane, the Go kubelet, the e2e suite, the node
 * peers): built from Kubernetes source on the machine that runs them, never shipped with the
 * repository or beside it, and found in one directory, KUBE_LAB_BIN (the lab's scripts read the same
 * variable with the same default). A machine without them runs everything else: the suites that need
 * them show as skipped, naming what is missing, in CI too, and the run's end counts them
 * (skipped-suites.reporter.ts). No vitest import: the benchmarks and the conformance run use it too.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_KUBE_LAB_BIN = '/opt/kube-lab/bin';

/** Where the upstream binaries are: $KUBE_LAB_BIN, else the lab's default. */
export function kubeLabBin(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBE_LAB_BIN || DEFAULT_KUBE_LAB_BIN;
}

/** The control plane as up.sh runs it: three binaries, or the one multi-call kube-lab. */
export const CONTROL_PLANE_BINARIES = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/** The words every "not built here" reason ends with, so a reader knows where the binaries come from. */
export const HOW_TO_BUILD = 'built from Kubernetes source on this machine, never shipped: docs/reference/build-and-test.md says how';

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` in KUBE_LAB_BIN, or undefined when it is not there. */
export function labBinary(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = join(kubeLabBin(env), name);
  return isExecutable(path) ? path : undefined;
}

/** `name` in KUBE_LAB_BIN, or an error naming it, the directory and where it comes from. */
export function requireLabBinary(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const path = labBinary(name, env);
  if (!path) throw new Error(notBuilt([name], env));
  return path;
}

/**
 * Why a lab peer (a driver or plugin a suite starts) cannot run: '' when $`variable` names an
 * executable or, unset, when `name` is in KUBE_LAB_BIN.
 */
export function peerUnbuilt(variable: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  const given = env[variable];
  if (given) return isExecutable(given) ? '' : `$${variable} (${given}) is not an executable`;
  return labBinary(name, env) ? '' : notBuilt([name], env);
}

/** A lab peer's binary: $`variable`, else `name` in KUBE_LAB_BIN (or an error saying it is not built). */
export function peerBinary(variable: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  return env[variable] || requireLabBinary(name, env);
}

/** The binaries of `names` that are not in KUBE_LAB_BIN; the control plane counts as there when a multi-call kube-lab is. */
export function absentLabBinaries(names: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const multiCall = labBinary('kube-lab', env) !== undefined;
  return names.filter((name) => !labBinary(name, env) && !(multiCall && (CONTROL_PLANE_BINARIES as readonly string[]).includes(name)));
}

/** The reason a suite or a run cannot use `absent`. */
export function notBuilt(absent: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return `no ${absent.join(', ')} in KUBE_LAB_BIN=${kubeLabBin(env)} (${HOW_TO_BUILD})`;
}
