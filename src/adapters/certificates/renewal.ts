/**
 * The certificate managers' renewal port (CertificateRenewalIo) over the kubeconfig file, the REST
 * client, the node-certificate CSR and the cert dir's pair store. The certificate managers' CSRs are
 * named by the server (generateName csr-), as Go's are.
 */
import type { Clock } from '../../ports/clock.js';
import type { CertificateRenewalIo } from '../../ports/certificate-renewal.js';
import { readKubeconfig } from '../apiserver/kubeconfig-file.js';
import { RestClient } from '../apiserver/rest-client.js';
import { generateKeyPair } from '../pki/x509.js';
import { askForNodeCertificate } from './node-certificate.js';
import { PairStore } from './pair-store.js';

export function createCertificateRenewal(o: { clock: Clock; userAgent: string }): CertificateRenewalIo {
  return {
    newPrivateKey: async () => (await generateKeyPair('ecdsa-p256')).privateKeyPem,
    connect: async (kubeconfigPath) => {
      const rest = new RestClient(readKubeconfig(kubeconfigPath), o.clock, o.userAgent);
      return {
        request: (keyPem, nodeName, r) => askForNodeCertificate(rest, keyPem, nodeName, {
          ...(r.serving ? { serving: r.serving } : {}),
          named: false,
          clock: o.clock,
          signal: r.signal,
          timeoutMs: r.timeoutMs,
          onCreated: r.onCreated,
          onState: () => {},
        }),
        close: () => rest.close(),
      };
    },
    store: async (certDir, store, pair, now) => {
      await new PairStore(certDir, store).update(pair.certificatePem, pair.keyPem, now);
    },
  };
}
