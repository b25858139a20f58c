/**
 * The parts of the lab the run uses, by path and never copied into the repository: the e2e lab
 * (e2e.test.xz, ginkgo.xz, images.sh; ../shared/lab/e2e, or KUBELET_CONFORMANCE_E2E_LAB) and the
 * real control plane's scripts with the Go kubelet (../shared/lab/kube, or KUBELET_IT_KUBE_LAB_SCRIPTS).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { kubeLabScripts } from '../../test/support/kube-lab-scripts.js';

export interface LabParts {
  e2e: string;
  kube: string;
}

export function labParts(env: NodeJS.ProcessEnv = process.env): LabParts {
  return { e2e: env.KUBELET_CONFORMANCE_E2E_LAB || resolve('..', 'shared', 'lab', 'e2e'), kube: kubeLabScripts(env) };
}

/** Why the run cannot start here, or '' when it can. */
export function missingParts(parts: LabParts, needGo: boolean): string {
  const need = [
    [parts.e2e, 'e2e.test.xz'], [parts.e2e, 'ginkgo.xz'], [parts.e2e, 'images.sh'],
    [parts.kube, 'up.sh'], [parts.kube, 'node-kubeconfig.sh'], ...(needGo ? [[parts.kube, 'go-kubelet.xz']] : []),
  ];
  const absent = need.map(([dir, file]) => join(dir!, file!)).filter((p) => !existsSync(p));
  return absent.length === 0 ? '' : `missing ${absent.join(', ')} (set KUBELET_CONFORMANCE_E2E_LAB and KUBELET_IT_KUBE_LAB_SCRIPTS to the lab's e2e and kube directories)`;
}

/** `xz -dc from > to`, executable. */
export function unpackXz(from: string, to: string): string {
  execFileSync('sh', ['-c', 'xz -dc "$1" > "$2.tmp" && chmod 755 "$2.tmp" && mv "$2.tmp" "$2"', 'unpack', from, to]);
  return to;
}
