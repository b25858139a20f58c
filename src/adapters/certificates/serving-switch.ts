/**
 * The kubelet server's certificate under serverTLSBootstrap: the cert dir's `kubelet-server-current.pem`
 * pair when there is a good one, and every pair the serving certificate manager installs later. The
 * kubelet server subscribes and swaps its TLS context in place (new connections get the new
 * certificate; open ones keep theirs), as Go's server does through GetCertificate.
 */
import type { ServingCertificates, ServingPair } from '../../ports/servers.js';
import { PairStore } from './pair-store.js';

export class ServingCertificateSwitch implements ServingCertificates {
  private pair: ServingPair | null = null;
  private readonly listeners = new Set<(pair: ServingPair) => void>();

  get current(): ServingPair | null {
    return this.pair;
  }

  /** Takes the store's current pair when it is usable now; answers its validity, or why not. */
  load(certDir: string, nowMs: number): { notBeforeMs: number; notAfterMs: number } | { why: string } {
    const current = new PairStore(certDir, 'kubelet-server').current();
    if (!current.pair) return { why: current.why };
    if (current.pair.notAfter.getTime() <= nowMs) return { why: `${current.pair.path} expired at ${current.pair.notAfter.toISOString()}` };
    this.pair = { certificatePem: current.pair.certificatePem, keyPem: current.pair.keyPem };
    return { notBeforeMs: current.pair.notBefore.getTime(), notAfterMs: current.pair.notAfter.getTime() };
  }

  install(pair: ServingPair): void {
    this.pair = pair;
    for (const listener of this.listeners) listener(pair);
  }

  subscribe(listener: (pair: ServingPair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
