/**
 * Client certificates checked as Go's x509 request authenticator checks them (crypto/x509 Verify:
 * clientCAFile's certificates as roots, the rest of the presented chain as intermediates, every
 * certificate within its validity, intermediates that are CAs, client authentication allowed by
 * every extended key usage on the chain), here in JavaScript rather than by OpenSSL in the handshake.
 *
 * Why not OpenSSL (`ca` and `socket.authorized`): a certificate naming a trusted CA as its issuer
 * whose signature does not match (a forger's CA with the trusted CA's subject) makes OpenSSL leave
 * the failed signature check on its error queue; the handshake goes on (with rejectUnauthorized
 * false Node's verify callback accepts everything) and Node then takes that stale entry for a
 * failure of the socket's next read, so the client got a reset instead of a 401. The server
 * therefore gives OpenSSL an empty trust store, so no signature is checked against a trusted name
 * there, and verifies here once per connection on 'secureConnection'. That event runs within the
 * handshake's completion, before the next read, and Node's certificate calls clear the error queue
 * as they return: a chain the client signed wrongly itself (a leaf that does not match the
 * intermediate presented with it, which OpenSSL still checks) also ends in a 401.
 *
 * The last 256 certificates that verified are remembered, by fingerprint, until their chain's
 * validity ends: a certificate seen again is not verified again, and a resumed TLS session, which
 * keeps the leaf but not the intermediates presented with it, verifies like its first handshake
 * (Go's session tickets keep the whole chain). A resumed session whose certificate needed an
 * intermediate and has been forgotten since (256 other certificates later) is answered 401.
 * Not checked (Go checks them): path length and name constraints.
 */
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { KubeletError } from '../../../domain/errors.js';
import { readPem } from './server-tls-options.js';

export type ClientCertificateVerdict = { ok: true } | { ok: false; reason: string };

/** The certificates of a PEM bundle, refused by name when it holds none or one does not parse. */
export async function loadCertificateBundle(path: string, what: string): Promise<X509Certificate[]> {
  const text = (await readPem(path, what)).toString('utf8');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new KubeletError('KLT_ERR_TLS_CONFIG', `${what} ${path} holds no PEM certificate`);
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new KubeletError('KLT_ERR_TLS_CONFIG', `${what} ${path}: certificate ${i + 1} does not parse: ${(err as Error).message}`, { cause: err });
    }
  });
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** Go's maxChainSignatureChecks: a presented chain cannot make verification arbitrarily long. */
const MAX_SIGNATURE_CHECKS = 100;
const MAX_PRESENTED = 16;

function validityError(cert: X509Certificate, nowMs: number): string | undefined {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  const now = new Date(nowMs).toISOString();
  if (nowMs < from) return `x509: certificate has expired or is not yet valid: current time ${now} is before ${new Date(from).toISOString()}`;
  if (nowMs > to) return `x509: certificate has expired or is not yet valid: current time ${now} is after ${new Date(to).toISOString()}`;
  return undefined;
}

/** No extended key usage at all allows any use, as in Go. (Node calls the extended ones keyUsage.) */
function allowsClientAuth(cert: X509Certificate): boolean {
  const usages = cert.keyUsage as string[] | undefined;
  return usages === undefined || usages.length === 0 || usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE);
}

/**
 * Whether `leaf` chains to one of `roots` through `intermediates` (the presented ones first), every
 * signature checked. Pure: the same certificates and time give the same verdict.
 */
export function verifyClientChain(
  leaf: X509Certificate,
  intermediates: readonly X509Certificate[],
  roots: readonly X509Certificate[],
  nowMs: number,
): ClientCertificateVerdict & { chain?: X509Certificate[] } {
  const expired = validityError(leaf, nowMs);
  if (expired) return { ok: false, reason: expired };
  if (!allowsClientAuth(leaf)) return { ok: false, reason: 'x509: certificate specifies an incompatible key usage' };
  let checks = 0;
  const signedBy = (cert: X509Certificate, issuer: X509Certificate): boolean => {
    if (checks >= MAX_SIGNATURE_CHECKS || !cert.checkIssued(issuer)) return false;
    checks++;
    try {
      return cert.verify(issuer.publicKey);
    } catch {
      return false;
    }
  };
  const usable = (cert: X509Certificate) => validityError(cert, nowMs) === undefined && allowsClientAuth(cert);
  const extend = (chain: X509Certificate[]): X509Certificate[] | undefined => {
    const last = chain[chain.length - 1]!;
    if (roots.some((root) => root.raw.equals(last.raw))) return chain;
    const root = roots.find((r) => usable(r) && signedBy(last, r));
    if (root) return [...chain, root];
    for (const mid of intermediates) {
      if (!mid.ca || !usable(mid) || chain.some((c) => c.raw.equals(mid.raw)) || !signedBy(last, mid)) continue;
      const found = extend([...chain, mid]);
      if (found) return found;
    }
    return undefined;
  };
  const chain = extend([leaf]);
  return chain ? { ok: true, chain } : { ok: false, reason: 'x509: certificate signed by unknown authority' };
}

/**
 * The certificates a client presented, its leaf first, as Node links them by issuer name. Read
 * through getPeerCertificate(true) only: calling getPeerX509Certificate() first leaves Node unable
 * to link the rest (seen on Node 20).
 */
function presentedChain(socket: TLSSocket): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<PeerCertificate>();
  let cert: PeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw && !seen.has(cert) && out.length < MAX_PRESENTED) {
    seen.add(cert);
    out.push(new X509Certificate(cert.raw));
    const next: PeerCertificate | undefined = (cert as { issuerCertificate?: PeerCertificate }).issuerCertificate;
    cert = next === cert ? undefined : next;
  }
  return out;
}

export interface ClientCertificateVerifier {
  /** Verifies a connection's certificate once, as it is established ('secureConnection'). */
  admit(socket: TLSSocket): void;
  /** The verdict on the connection's certificate; undefined when it presented none or was not admitted. */
  verdictOf(socket: object): ClientCertificateVerdict | undefined;
}

const REMEMBERED_CERTIFICATES = 256;

/** Sets `key` as the newest entry of `map`, dropping the oldest past `limit`. */
function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
}

export function createClientCertificateVerifier(roots: readonly X509Certificate[], now: () => number = Date.now): ClientCertificateVerifier {
  const verdicts = new WeakMap<object, ClientCertificateVerdict>();
  // Certificates that chained to a root, by fingerprint, with the end of their chain's validity: a
  // client that connects again (or resumes its session) with the same certificate is not verified
  // again. Reading its chain and checking the signatures costs several times the CPU of reading the
  // leaf alone, on every new connection (docs/FINDINGS.md).
  const verifiedLeaves = new Map<string, number>();
  return {
    admit(socket) {
      const presented = socket.getPeerCertificate();
      if (!presented?.raw) return;
      const at = now();
      const validUntil = verifiedLeaves.get(presented.fingerprint256);
      if (validUntil !== undefined && at <= validUntil) {
        verdicts.set(socket, { ok: true });
        return;
      }
      const [leaf, ...rest] = presentedChain(socket);
      const result = verifyClientChain(leaf!, rest, roots, at);
      if (!result.ok) {
        verdicts.set(socket, { ok: false, reason: result.reason });
        return;
      }
      remember(verifiedLeaves, presented.fingerprint256, Math.min(...result.chain!.map((c) => Date.parse(c.validTo))), REMEMBERED_CERTIFICATES);
      verdicts.set(socket, { ok: true });
    },
    verdictOf: (socket) => verdicts.get(socket),
  };
}
