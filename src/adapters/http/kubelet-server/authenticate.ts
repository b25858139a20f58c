/**
 * Authentication for the kubelet server, in Go's order (k8s.io/apiserver DelegatingAuthenticator):
 * x509 client certificate, then bearer token, then anonymous when enabled.
 *
 * - x509: a certificate verified against clientCAFile (the connection's verdict, client-certificates.ts)
 *   names the user by its subject CN and the groups by its O values. A certificate that does not verify is an error,
 *   and an error is a 401 even when anonymous is on (Go's union is FailOnError before anonymous).
 * - Bearer: `Authorization: Bearer <token>` goes to the TokenReviewer; a token it does not accept is
 *   a 401. With no TokenReviewer (standalone, no API server) a bearer token is a 401 here; Go would
 *   not look at the header at all then and fall through to anonymous. We refuse rather than let a
 *   caller who presented credentials be treated as anonymous.
 * - Anonymous: `system:anonymous` in `system:unauthenticated`.
 * Everyone authenticated (not anonymous) is also in `system:authenticated`, as Go adds it.
 */
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, type UserInfo } from '../../../domain/kubelet-server/request-attributes.js';
import type { TokenReviewer } from '../../../ports/kubelet-view.js';
import type { ClientCertificateVerdict } from '../tls/client-certificates.js';

export type AuthenticationResult =
  | { ok: true; user: UserInfo; method: 'x509' | 'token' | 'anonymous' }
  | { ok: false; reason: string };

export interface AuthenticatorOptions {
  anonymous: boolean;
  /**
   * The verdict on a connection's client certificate; absent when no client CA is configured, and
   * then certificates are not considered.
   */
  clientCertificates?: (socket: object) => ClientCertificateVerdict | undefined;
  tokenReviewer?: TokenReviewer;
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** The verified client certificate's identity, `undefined` when none was sent, or an error. */
function fromClientCertificate(
  socket: IncomingMessage['socket'],
  verdictOf: (socket: object) => ClientCertificateVerdict | undefined,
): UserInfo | undefined | { error: string } {
  const tls = socket as Partial<TLSSocket>;
  if (typeof tls.getPeerCertificate !== 'function') return undefined;
  const cert = tls.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  // A certificate on a connection not verified is refused, not let through.
  const verdict = verdictOf(socket) ?? { ok: false, reason: 'the connection\'s certificate was not verified' };
  if (!verdict.ok) return { error: `verifying certificate failed: ${verdict.reason}` };
  const cn = asList(cert.subject?.CN)[0];
  if (!cn) return { error: 'client certificate has no common name' };
  return { name: cn, groups: asList(cert.subject?.O) };
}

/** The token of an `Authorization: Bearer …` header, as Go's bearertoken authenticator reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const parts = header.trim().split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

export async function authenticateRequest(raw: IncomingMessage, opts: AuthenticatorOptions): Promise<AuthenticationResult> {
  if (opts.clientCertificates) {
    const x509 = fromClientCertificate(raw.socket, opts.clientCertificates);
    if (x509 && 'error' in x509) return { ok: false, reason: x509.error };
    if (x509) return { ok: true, user: withAuthenticatedGroup(x509), method: 'x509' };
  }
  const token = bearerToken(raw.headers.authorization);
  if (token !== undefined) {
    if (!opts.tokenReviewer) return { ok: false, reason: 'bearer token presented but no TokenReview is available' };
    try {
      const review = await opts.tokenReviewer.review(token);
      if (review.error) return { ok: false, reason: review.error };
      if (!review.authenticated || !review.user) return { ok: false, reason: 'invalid bearer token' };
      return { ok: true, user: withAuthenticatedGroup(review.user), method: 'token' };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  }
  if (opts.anonymous) return { ok: true, user: ANONYMOUS_USER, method: 'anonymous' };
  return { ok: false, reason: 'no credentials' };
}
