/**
 * The certificate managers' effects (CERTIFICATE_MANAGER_EFFECTS, SERVING_CERTIFICATE_MANAGER_EFFECTS):
 * one renewal, through the CertificateRenewalIo port. With --kubeconfig's credentials (the current
 * client certificate: the node asks as itself, as Go's managers do), a new ECDSA P-256 key and a CSR
 * for it:
 * - client: signer kubernetes.io/kube-apiserver-client-kubelet; once issued, the pair goes into the
 *   cert dir's `kubelet-client` store (the current link moves) and the API clients are reopened on
 *   it, closing their old connections (Go's closeAllConns);
 * - serving (serverTLSBootstrap): signer kubernetes.io/kubelet-serving with the node's names as
 *   SANs; once issued, the `kubelet-server` store and the kubelet server's TLS context, swapped in
 *   place.
 * An issued certificate that is expired or not yet valid is not stored: the renewal fails with
 * Go's x509 words and the pair in use stays. Answers with the new validity and a fresh jitter, or
 * with the error; never throws.
 */
import { X509Certificate } from 'node:crypto';
import { fromPromise } from 'xstate';
import { unusableIssuedCertificate } from '../../domain/certificates/rotation.js';
import { KubeletError, serializeError } from '../../domain/errors.js';
import type { CertificateRotation, RotateCertificateInput } from '../../machines/certificate-manager.machine.js';
import type { CertificateRenewalIo, CertificateSigner } from '../../ports/certificate-renewal.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';
import type { Logger } from '../../log.js';

/** Go's certificateWaitTimeout: how long a renewal's CSR may wait to be issued. */
export const ROTATION_WAIT_MS = 15 * 60_000;

export interface RotateDeps {
  kind: 'client' | 'serving';
  /** --kubeconfig and --cert-dir, read when a renewal runs (they exist only once start-up parsed them). */
  settings: () => { kubeconfigPath: string; certDir: string };
  /** Puts the new pair to use: the API clients reopened, or the kubelet server's context swapped. */
  install: (pair: { certificatePem: string; keyPem: string }) => void;
  /** The key, the certificates API and the pair store. */
  io: CertificateRenewalIo;
  clock: Clock;
  random: Random;
  logger: Logger;
}

export function rotateCertificateActor(deps: RotateDeps) {
  const what = `${deps.kind} certificate`;
  return fromPromise<CertificateRotation, RotateCertificateInput>(async ({ input, signal }) => {
    const { kubeconfigPath, certDir } = deps.settings();
    let signer: CertificateSigner | null = null;
    try {
      signer = await deps.io.connect(kubeconfigPath);
      const privateKeyPem = await deps.io.newPrivateKey();
      const { csr, certificatePem } = await signer.request(privateKeyPem, input.nodeName, {
        ...(deps.kind === 'serving' ? { serving: input.servingNames ?? { dnsNames: [input.nodeName], ipAddresses: [] } } : {}),
        signal,
        timeoutMs: ROTATION_WAIT_MS,
        onCreated: (name) => deps.logger.info({ csr: name, attempt: input.attempt }, `Requesting a new ${what}`),
      });
      const cert = readIssued(certificatePem, what);
      const validity = { notBeforeMs: Date.parse(cert.validFrom), notAfterMs: Date.parse(cert.validTo) };
      // Checked before the store: an expired or not yet valid certificate must not replace the one in use.
      const unusable = unusableIssuedCertificate(what, validity, deps.clock.now());
      if (unusable) throw new KubeletError(unusable.code, unusable.message, { retryable: unusable.retryable });
      // The store refuses a pair TLS cannot load, so a bad one fails the rotation and the old one stays in use.
      const pair = { certificatePem, keyPem: privateKeyPem };
      await deps.io.store(certDir, deps.kind === 'serving' ? 'kubelet-server' : 'kubelet-client', pair, new Date(deps.clock.now()));
      deps.install(pair);
      deps.logger.info({ csr, notAfter: cert.validTo }, `New ${what} in use`);
      return { ok: true, csr, ...validity, observedAtMs: deps.clock.now(), jitter: deps.random.next() };
    } catch (err) {
      deps.logger.warn({ err: serializeError(err), attempt: input.attempt }, `Could not rotate the ${what}`);
      return { ok: false, error: serializeError(err), observedAtMs: deps.clock.now() };
    } finally {
      signer?.close();
    }
  });
}

function readIssued(certificatePem: string, what: string): X509Certificate {
  try {
    return new X509Certificate(certificatePem);
  } catch (err) {
    throw new KubeletError('KLT_ERR_BOOTSTRAP', `the issued ${what} cannot be read: ${(err as Error).message}`, { cause: err });
  }
}
