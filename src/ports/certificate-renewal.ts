/**
 * What a certificate manager's renewal needs from the world: a new key, the certificates API
 * answering a CSR for it, and the cert dir's pair store. Real: src/adapters/certificates/renewal.ts,
 * loaded by the composition root only when a renewal runs.
 */

export interface CertificateRenewalIo {
  /** A new ECDSA P-256 private key, as PEM. */
  newPrivateKey(): Promise<string>;
  /** The certificates API with --kubeconfig's credentials (the node asks as itself); closed once the renewal ends. */
  connect(kubeconfigPath: string): Promise<CertificateSigner>;
  /** Writes the pair into the cert dir's store (`kubelet-client`, `kubelet-server`) and moves its current link; a pair TLS cannot load is refused. */
  store(certDir: string, store: PairStoreName, pair: { certificatePem: string; keyPem: string }, now: Date): Promise<void>;
}

export type PairStoreName = 'kubelet-client' | 'kubelet-server';

export interface CertificateSigner {
  /** Creates a CSR for the key (server-named) and waits until it is issued, denied or timed out. */
  request(keyPem: string, nodeName: string, o: NodeCertificateRequest): Promise<{ csr: string; certificatePem: string }>;
  close(): void;
}

export interface NodeCertificateRequest {
  /** A serving certificate's SANs; without it, a client certificate. */
  serving?: { dnsNames: string[]; ipAddresses: string[] };
  signal: AbortSignal;
  timeoutMs: number;
  onCreated: (csrName: string) => void;
}
