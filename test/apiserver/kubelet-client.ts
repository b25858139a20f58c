/**
 * The test API server's own client certificate for kubelets (Go: --kubelet-client-certificate and
 * --kubelet-client-key), CN `kube-apiserver-kubelet-client` in `kubeadm:cluster-admins` as kubeadm
 * issues it. Signed by the TLS mode's CA, or by a CA of its own on a plain-HTTP server; a kubelet
 * that should accept it gets that CA as authentication.x509.clientCAFile.
 */
import { readFileSync, rmSync } from 'node:fs';
import type { KubeletClientIdentity } from './pod-log-proxy.js';
import { createTestPki, type TestPki } from './pki.js';

export const KUBELET_CLIENT_USER = 'kube-apiserver-kubelet-client';

export interface KubeletClient {
  identity: KubeletClientIdentity;
  /** PEM of the CA that signed the certificate. */
  caPem: string;
  /** Removes a CA made for this client alone. */
  close(): void;
}

export async function createKubeletClient(serverPki: TestPki | undefined, dialHost: string | undefined): Promise<KubeletClient> {
  const pki = serverPki ?? await createTestPki();
  const files = await pki.issueClientCertificate(KUBELET_CLIENT_USER, ['kubeadm:cluster-admins']);
  return {
    identity: {
      certPem: readFileSync(files.certFile, 'utf8'), keyPem: readFileSync(files.keyFile, 'utf8'),
      ...(dialHost !== undefined ? { dialHost } : {}),
    },
    caPem: pki.caPem,
    close: () => { if (pki !== serverPki) rmSync(pki.dir, { recursive: true, force: true }); },
  };
}
