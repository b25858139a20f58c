/**
 * The certificate manager's effect (CERTIFICATE_MANAGER_EFFECTS): one renewal of the client
 * certificate. With --kubeconfig's credentials (the current certificate: the node asks as itself,
 * as Go's manager does), a new ECDSA P-256 key and a CSR for it; once issued, the pair goes into the
 * cert dir's store (the current link moves to it) and the API clients are reopened on it, closing
 * their old connections. Answers with the new validity and a fresh jitter, or with the error; never
 * throws.
 */
import { X509Certificate } from 'node:crypto';
import { fromPromise } from 'xstate';
import { serializeError } from '../../domain/errors.js';
import type { CertificateRotation, RotateCertificateInput } from '../../machines/certificate-manager.machine.js';
import type { Clock } from '../../ports/clock.js';
import type { Random } from '../../ports/random.js';
import type { Logger } from '../../log.js';

/** Go's certificateWaitTimeout: how long a renewal's CSR may wait to be issued. */
export const ROTATION_WAIT_MS = 15 * 60_000;

export interface RotateDeps {
  /** --kubeconfig and --cert-dir, read when a renewal runs (they exist only once start-up parsed them). */
  settings: () => { kubeconfigPath: string; certDir: string };
  /** Reopens the three API clients on the kubeconfig (now naming the new pair). */
  reloadClients: () => void;
  clock: Clock;
  random: Random;
  userAgent: string;
  logger: Logger;
}

export function rotateClientCertificateActor(deps: RotateDeps) {
  return fromPromise<CertificateRotation, RotateCertificateInput>(async ({ input, signal }) => {
    const { kubeconfigPath, certDir } = deps.settings();
    const { nodeName } = input;
    const [{ readKubeconfig }, { RestClient }, { askForClientCertificate }, { PairStore }, { generateKeyPair }] = await Promise.all([
      import('../../adapters/apiserver/kubeconfig-file.js'),
      import('../../adapters/apiserver/rest-client.js'),
      import('../../adapters/certificates/client-bootstrap.js'),
      import('../../adapters/certificates/pair-store.js'),
      import('../../adapters/pki/x509.js'),
    ]);
    let rest: InstanceType<typeof RestClient> | null = null;
    try {
      rest = new RestClient(readKubeconfig(kubeconfigPath), deps.clock, deps.userAgent);
      const { privateKeyPem } = await generateKeyPair('ecdsa-p256');
      const { csr, certificatePem } = await askForClientCertificate(rest, privateKeyPem, nodeName, {
        named: false,
        clock: deps.clock,
        signal,
        timeoutMs: ROTATION_WAIT_MS,
        onCreated: (name) => deps.logger.info({ csr: name, attempt: input.attempt }, 'Rotating the client certificate'),
        onState: () => {},
      });
      await new PairStore(certDir, 'kubelet-client').update(certificatePem, privateKeyPem, new Date(deps.clock.now()));
      deps.reloadClients();
      const cert = new X509Certificate(certificatePem);
      const notAfterMs = Date.parse(cert.validTo);
      deps.logger.info({ csr, notAfter: cert.validTo }, 'Client certificate rotated');
      return { ok: true, csr, notBeforeMs: Date.parse(cert.validFrom), notAfterMs, observedAtMs: deps.clock.now(), jitter: deps.random.next() };
    } catch (err) {
      deps.logger.warn({ err: serializeError(err), attempt: input.attempt }, 'Could not rotate the client certificate');
      return { ok: false, error: serializeError(err), observedAtMs: deps.clock.now() };
    } finally {
      rest?.close();
    }
  });
}
