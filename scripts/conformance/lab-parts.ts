/**
 * The parts of the lab the run uses, by path and never copied into the repository: the e2e lab's
 * images.sh (../shared/lab/e2e, or KUBELET_CONFORMANCE_E2E_LAB), the real control plane's scripts
 * (../shared/lab/kube, or KUBELET_IT_KUBE_LAB_SCRIPTS), and the upstream binaries built on this
 * machine in KUBE_LAB_BIN: the control plane, e2e.test and ginkgo, and the Go kubelet for a Go run.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeLabScripts } from '../../test/support/kube-lab-scripts.js';
import { absentLabBinaries, CONTROL_PLANE_BINARIES, kubeLabBin, notBuilt } from '../../test/support/lab-bin.js';

export interface LabParts {
  e2e: string;
  kube: string;
  /** KUBE_LAB_BIN */
  bin: string;
}

export function labParts(env: NodeJS.ProcessEnv = process.env): LabParts {
  return { e2e: env.KUBELET_CONFORMANCE_E2E_LAB || resolve('..', 'shared', 'lab', 'e2e'), kube: kubeLabScripts(env), bin: kubeLabBin(env) };
}

/** Why the run cannot start here, or '' when it can. */
export function missingParts(parts: LabParts, needGo: boolean, e2eBinary = 'e2e.test'): string {
  const scripts = [join(parts.e2e, 'images.sh'), join(parts.kube, 'up.sh'), join(parts.kube, 'node-kubeconfig.sh')].filter((p) => !existsSync(p));
  const binaries = absentLabBinaries([...CONTROL_PLANE_BINARIES, e2eBinary, 'ginkgo', ...(needGo ? ['kubelet'] : [])], { KUBE_LAB_BIN: parts.bin });
  return [
    scripts.length ? `missing ${scripts.join(', ')} (set KUBELET_CONFORMANCE_E2E_LAB and KUBELET_IT_KUBE_LAB_SCRIPTS to the lab's e2e and kube directories)` : '',
    binaries.length ? notBuilt(binaries, { KUBE_LAB_BIN: parts.bin }) : '',
  ].filter(Boolean).join('; ');
}
