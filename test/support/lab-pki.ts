/**
 * Client certificates signed with the real control plane's CA key (kube-lab.ts), for what its
 * signer will not issue on demand: a certificate that expires in seconds, or one for a user of the
 * test's choosing. Made in process (src/adapters/pki/x509.ts); the API server's x509 authenticator
 * reads the user from CN and the groups from O.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificate, generateKeyPair, importPrivateKey } from '../../src/adapters/pki/x509.js';
import type { KubeLab } from './kube-lab-up.js';

export interface LabClientCertificate { certificatePem: string; keyPem: string }

export async function labClientCertificate(
  lab: Pick<KubeLab, 'dir' | 'ca'>, who: { user: string; groups: string[] }, validity: { notBefore: Date; notAfter: Date },
): Promise<LabClientCertificate> {
  const issuer = { certificatePem: readFileSync(lab.ca, 'utf8'), privateKey: (await importPrivateKey(readFileSync(join(lab.dir, 'pki', 'ca.key'), 'utf8'))).privateKey };
  const keys = await generateKeyPair('ecdsa-p256');
  const certificatePem = await createCertificate({
    subject: { commonName: who.user, organizations: who.groups }, ...validity,
    publicKey: keys.keys.publicKey, keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['clientAuth'],
  }, issuer);
  return { certificatePem, keyPem: keys.privateKeyPem };
}

/** A kubeconfig for the lab's API server with a client certificate and key in files. */
export function labKubeconfig(lab: Pick<KubeLab, 'server' | 'ca'>, certFile: string, keyFile: string): string {
  return [
    'apiVersion: v1', 'kind: Config',
    `clusters: [{name: kube-lab, cluster: {server: "${lab.server}", certificate-authority: "${lab.ca}"}}]`,
    `users: [{name: default-auth, user: {client-certificate: "${certFile}", client-key: "${keyFile}"}}]`,
    'contexts: [{name: default-context, context: {cluster: kube-lab, user: default-auth}}]', 'current-context: default-context', '',
  ].join('\n');
}
