/**
 * What the certificate manager starts from: the cert dir's current client pair, when --kubeconfig
 * uses it (the kubeconfig a bootstrap writes, or kubeadm's, names kubelet-client-current.pem). A
 * kubeconfig with another certificate (inline, or another file) is not rotated: Go would copy it
 * into the store first; kubelet-ts says why it does not rotate instead.
 */
import { readKubeconfig } from '../apiserver/kubeconfig-file.js';
import { PairStore } from './pair-store.js';

export function currentClientPair(kubeconfigPath: string, certDir: string): { notBeforeMs: number; notAfterMs: number } | { why: string } {
  const store = new PairStore(certDir, 'kubelet-client');
  const current = store.current();
  if (!current.pair) return { why: current.why };
  let cert: Buffer | undefined;
  try {
    cert = readKubeconfig(kubeconfigPath).user.cert;
  } catch (err) {
    return { why: (err as Error).message };
  }
  if (!cert || !cert.toString('utf8').includes(current.pair.certificatePem.trim())) {
    return { why: `${kubeconfigPath} does not use ${store.currentPath}` };
  }
  return { notBeforeMs: current.pair.notBefore.getTime(), notAfterMs: current.pair.notAfter.getTime() };
}
