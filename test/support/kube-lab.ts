/**
 * The real control plane (kube-apiserver, kube-controller-manager, kube-scheduler v1.35 over etcd) that
 * `../shared/lab/kube/up.sh` brings up on free loopback ports. One per vitest run: the global setup
 * (kube-lab.global-setup.ts) names an empty directory and purges it after the run; the first test
 * file that calls kubeLab() starts the lab in it, under flock(1), and every later file, in any
 * worker, finds it up. A failed start is written down too, so later files fail at once with the same
 * reason instead of each waiting for up.sh again. The scripts' own directory is never written to
 * (up.sh writes only under KUBE_LAB): in CI it is a read-only copy.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { inject } from 'vitest';
import { kubectlBin, kubeLabScripts, runScript, scriptEnv } from './kube-lab-scripts.js';
import { absentLabBinaries, CONTROL_PLANE_BINARIES, notBuilt } from './lab-bin.js';
import { upOnce, type KubeLab } from './kube-lab-up.js';
import { allOf, containerdPart, type RealPart } from './real-parts.js';

export { labApi, labPodLog, labWatch, upOnce, type KubeLab } from './kube-lab-up.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory the run's control plane lives in (started by the first file that needs it). */
    kubeLabDir: string;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * What the lab needs: its scripts, kubectl, etcd (up.sh fetches etcd 3.5 itself when it runs as
 * root), and the control plane's binaries in KUBE_LAB_BIN, with `more` binaries a suite runs beside it.
 */
export function kubeLabPart(env: NodeJS.ProcessEnv = process.env, more: readonly string[] = []): RealPart {
  const scripts = kubeLabScripts(env);
  const missing = [
    existsSync(join(scripts, 'up.sh')) ? '' : `the real control plane's scripts are absent (${scripts}: ../shared/lab/kube beside the repository, or set KUBELET_IT_KUBE_LAB_SCRIPTS)`,
    existsSync(kubectlBin(env)) ? '' : `kubectl is not installed at ${kubectlBin(env)} (apt-get install kubernetes-client)`,
    onPath('etcd', env) || process.getuid?.() === 0 ? '' : 'etcd is not installed and up.sh cannot install it without root (apt-get install etcd-server)',
  ].filter(Boolean);
  const absent = absentLabBinaries([...CONTROL_PLANE_BINARIES, ...more], env);
  return { name: 'the real control plane (../shared/lab/kube)', missing: missing.join('; '), unbuilt: absent.length ? notBuilt(absent, env) : '' };
}

/** What a node on the lab needs on a runtime endpoint: the lab, and containerd unless the runtime is the embedded one. */
export function kubeLabPartFor(endpoint: string, env: NodeJS.ProcessEnv = process.env): RealPart {
  return endpoint === 'embedded' ? kubeLabPart(env) : allOf(kubeLabPart(env), containerdPart(env));
}

let started: Promise<KubeLab> | undefined;

/** The run's control plane, started on first use. */
export function kubeLab(): Promise<KubeLab> {
  started ??= upOnce(inject('kubeLabDir'), kubeLabScripts());
  return started;
}

/** A bootstrap kubeconfig with a new bootstrap token, as `kubeadm join` writes one; its token id names the CSR's user. */
export async function bootstrapKubeconfig(lab: KubeLab): Promise<{ text: string; tokenId: string }> {
  const text = await runScript('bash', [join(lab.scripts, 'bootstrap-kubeconfig.sh')], scriptEnv(lab.dir), 60_000);
  const tokenId = /token: "?([a-z0-9]{6})\./.exec(text)?.[1];
  if (!tokenId) throw new Error(`bootstrap-kubeconfig.sh wrote no bootstrap token:\n${text}`);
  return { text, tokenId };
}
