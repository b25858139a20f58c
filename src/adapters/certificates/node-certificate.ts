/**
 * A node's certificate through the certificates API, for the bootstrap and both certificate
 * managers: the CSR (CN system:node:<node>, O system:nodes; Go's requestNodeCertificate for the
 * client, its serving certificate manager's template for the serving certificate), created and
 * followed until issued (csr-request.ts).
 */
import { createHash, createPublicKey } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { RestClient } from '../apiserver/rest-client.js';
import { createCsr, waitForCertificate } from './csr-request.js';

export const CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
/** Go's digestedName: node-csr-<base64url(SHA-512/256 of each input base64url-encoded, '|'-terminated)>. */
export function csrDigestName(publicKeyDer: Buffer, commonName: string, organizations: readonly string[], usages: readonly string[]): string {
  const hash = createHash('sha512-256');
  for (const part of [publicKeyDer, Buffer.from(commonName), ...organizations.map((o) => Buffer.from(o)), ...usages.map((u) => Buffer.from(u))]) {
    hash.update(part.toString('base64url'));
    hash.update('|');
  }
  return `node-csr-${hash.digest('base64url')}`;
}

export const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

/**
 * A certificate for `keyPem`: digital signature and client auth, or server auth with the node's
 * names as SANs for `serving`; key encipherment too for an RSA key. The bootstrap names the CSR
 * node-csr-<digest>; the certificate managers let the server name it (generateName csr-), as Go's do.
 */
export async function askForNodeCertificate(rest: RestClient, keyPem: string, nodeName: string, o: {
  serving?: { dnsNames: string[]; ipAddresses: string[] };
  named: boolean;
  clock: Clock;
  signal: AbortSignal;
  timeoutMs: number;
  onCreated: (name: string) => void;
  onState: (name: string, state: 'pending' | 'approved') => void;
}): Promise<{ csr: string; certificatePem: string }> {
  const publicKey = createPublicKey(keyPem);
  const usages = ['digital signature', o.serving ? 'server auth' : 'client auth', ...(publicKey.asymmetricKeyType === 'rsa' ? ['key encipherment'] : [])];
  const subject = { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] };
  const { createCertificateRequest, importPrivateKey } = await import('../pki/x509.js');
  const requestPem = await createCertificateRequest(subject, await importPrivateKey(keyPem), o.serving);
  const name = o.named ? csrDigestName(publicKey.export({ type: 'spki', format: 'der' }), subject.commonName, subject.organizations, usages) : '';
  const csr = await createCsr(rest, { name, requestPem, signerName: o.serving ? SERVING_SIGNER : CLIENT_KUBELET_SIGNER, usages });
  o.onCreated(csr.name);
  const certificatePem = await waitForCertificate(rest, csr, { clock: o.clock, signal: o.signal, timeoutMs: o.timeoutMs, onState: o.onState });
  return { csr: csr.name, certificatePem };
}
