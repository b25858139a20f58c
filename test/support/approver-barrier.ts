/**
 * A barrier on the control plane's CSR approver (the controller-manager's csrapproving), for tests
 * that check it left a request alone: nothing announces "the approver looked and passed". A probe
 * request it does approve (a node client certificate asked for by the admin, whom the nodeclient
 * rule lets through), created after the request in question, is taken up after it, since the
 * approver works through its queue in the order the CSR informer saw them: once the probe is
 * Approved, a verdict on the earlier request would have been written. The probe is deleted after.
 */
import { randomBytes } from 'node:crypto';
import { createCertificateRequest, generateKeyPair } from '../../src/adapters/pki/x509.js';
import { until } from './daemon.js';
import { labApi, type KubeLab } from './kube-lab-up.js';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

interface ProbeCsr { status?: { conditions?: { type: string }[] } }

/** Resolves once the approver has approved a request created now, i.e. has taken up every request made before. */
export async function approverCaughtUp(lab: KubeLab, ms = 30_000): Promise<void> {
  const name = `kts-approver-probe-${randomBytes(4).toString('hex')}`;
  const keys = await generateKeyPair('ecdsa-p256');
  const request = await createCertificateRequest({ commonName: `system:node:${name}`, organizations: ['system:nodes'] }, keys.keys);
  const created = await labApi(lab, 'POST', CSRS, {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
    spec: { request: Buffer.from(request).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
  });
  if (created.status !== 201) throw new Error(`POST probe CSR ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  try {
    await until(`the approver's verdict on ${name}`, async () =>
      (await labApi<ProbeCsr>(lab, 'GET', `${CSRS}/${name}`)).body.status?.conditions?.some((c) => c.type === 'Approved'), ms);
  } finally {
    await labApi(lab, 'DELETE', `${CSRS}/${name}`);
  }
}
