/**
 * What kube-controller-manager does with a node's CertificateSigningRequests, for the test API
 * server in TLS mode: the approver (csrapproving: a node's client CSR, signer
 * kubernetes.io/kube-apiserver-client-kubelet, is approved with reason AutoApproved) and the signer
 * (csrsigning: an approved CSR of the kubelet signers gets status.certificate, signed by the test
 * CA). A test sets how long issued certificates are valid: negative, the signer issues expired
 * ones, a fault no real signer commits. A CSR denied or left pending is the real controller-manager's
 * to show (tls-bootstrap.e2e.test.ts), and so are renewals (certificate-rotation.e2e.test.ts).
 *
 * Differs from the real controllers: no RBAC check of the requester, no check that the request's
 * subject and usages are what the signer allows (a real signer fails such a CSR).
 */
import { parseCertificateRequest } from '../../src/adapters/pki/x509.js';
import type { TestPki } from './pki.js';
import type { KubeObject } from './resources.js';
import type { ObjectStore } from './store.js';

export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

export interface CsrPolicy {
  /** Validity of issued certificates in seconds, capped by the CSR's expirationSeconds (default a day). */
  validitySeconds: number;
}

interface Condition { type: string; status: string; reason?: string; message?: string; lastUpdateTime?: string }
interface Csr extends KubeObject {
  spec?: { request?: string; signerName?: string; expirationSeconds?: number; usages?: string[] };
  status?: { conditions?: Condition[]; certificate?: string };
}

const hasCondition = (csr: Csr, type: string) => (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

export class CsrController {
  readonly policy: CsrPolicy = { validitySeconds: 24 * 3600 };
  private readonly unsubscribe: () => void;

  constructor(private readonly store: ObjectStore, private readonly pki: TestPki) {
    this.unsubscribe = store.subscribe((change) => {
      if (change.storage !== 'certificatesigningrequests' || change.type === 'DELETED') return;
      const csr = change.object as Csr;
      const signer = csr.spec?.signerName;
      if (signer !== CLIENT_SIGNER && signer !== SERVING_SIGNER) return;
      // After the creation's own notifications: the approval is a write of its own.
      if (change.type === 'ADDED') queueMicrotask(() => this.approve(csr.metadata?.name ?? ''));
      if (hasCondition(csr, 'Approved') && !hasCondition(csr, 'Denied') && !hasCondition(csr, 'Failed') && !csr.status?.certificate) {
        void this.sign(csr);
      }
    });
  }

  close(): void {
    this.unsubscribe();
  }

  /** Approves a new CSR at once, with the real approver's reason and message. */
  private approve(name: string): void {
    const csr = this.store.get('certificatesigningrequests', undefined, name) as Csr | undefined;
    if (!csr || hasCondition(csr, 'Approved') || hasCondition(csr, 'Denied')) return;
    const condition: Condition = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.', lastUpdateTime: new Date().toISOString() };
    const status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] };
    this.store.update('certificatesigningrequests', { ...csr, status }, 'status', undefined, name);
  }

  private async sign(csr: Csr): Promise<void> {
    const name = csr.metadata?.name ?? '';
    const request = await parseCertificateRequest(Buffer.from(csr.spec?.request ?? '', 'base64').toString('utf8')).catch(() => null);
    const current = this.store.get('certificatesigningrequests', undefined, name) as Csr | undefined;
    if (!current || current.status?.certificate) return;
    if (request === null) {
      const failed: Condition = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'the request is not a valid PKCS #10 request', lastUpdateTime: new Date().toISOString() };
      this.store.update('certificatesigningrequests', { ...current, status: { ...current.status, conditions: [...(current.status?.conditions ?? []), failed] } }, 'status', undefined, name);
      return;
    }
    const seconds = Math.min(this.policy.validitySeconds, csr.spec?.expirationSeconds ?? Infinity);
    const usage = csr.spec?.signerName === SERVING_SIGNER ? 'serverAuth' : 'clientAuth';
    const pem = await this.pki.signRequest(request, usage, new Date(Date.now() + seconds * 1000));
    const latest = this.store.get('certificatesigningrequests', undefined, name) as Csr | undefined;
    if (!latest || latest.status?.certificate) return;
    this.store.update('certificatesigningrequests', { ...latest, status: { ...latest.status, certificate: Buffer.from(pem).toString('base64') } }, 'status', undefined, name);
  }
}
