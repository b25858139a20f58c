/**
 * The certificate managers' renewal port, its adapters (REST client, x509, pair store) loaded on the
 * first renewal: most runs never renew, and start-up time is mostly module loading.
 */
import type { CertificateRenewalIo } from '../ports/certificate-renewal.js';
import type { Clock } from '../ports/clock.js';

export function lazyCertificateRenewal(o: { clock: Clock; userAgent: string }): CertificateRenewalIo {
  let loading: Promise<CertificateRenewalIo> | undefined;
  const io = () => (loading ??= import('../adapters/certificates/renewal.js').then(
    (m) => m.createCertificateRenewal(o),
    // A failed load is retried by the next renewal rather than remembered.
    (err: unknown) => { loading = undefined; throw err; },
  ));
  return {
    newPrivateKey: async () => (await io()).newPrivateKey(),
    connect: async (kubeconfigPath) => (await io()).connect(kubeconfigPath),
    store: async (...a) => (await io()).store(...a),
  };
}
