/**
 * RS256 JSON Web Tokens for the test API server's service account tokens: an RSA 2048 key made in
 * process (as pki.ts makes its keys), compact JWS signing and checking, and the public
 * key as PEM and as a JWK. As the Go API server's tokens: the header is only `alg` and `kid`, and
 * the kid is the unpadded base64url SHA-256 of the PKIX (SPKI DER) public key.
 */
import { createHash, sign, verify } from 'node:crypto';
import { generateKeyPair } from '../../src/adapters/pki/x509.js';

/** A public key as the API server's /openid/v1/jwks lists it. */
export interface RsaJwk {
  use: 'sig';
  kty: 'RSA';
  kid: string;
  alg: 'RS256';
  n: string;
  e: string;
}

export interface JwtHeader {
  alg: string;
  kid?: string;
  [key: string]: unknown;
}

export interface JwtSigner {
  readonly kid: string;
  readonly publicKeyPem: string;
  readonly jwk: RsaJwk;
  /** The compact serialisation of `claims`, signed. Keys are written in the object's order. */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** The payload of `token` when its signature is this key's; rejects with why otherwise. */
  verify(token: string): Promise<Record<string, unknown>>;
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

function decodeJson(part: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new Error(`token ${what} is not a base64url JSON object`);
}

export async function createJwtSigner(): Promise<JwtSigner> {
  const { keys } = await generateKeyPair('rsa-2048');
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const kid = createHash('sha256').update(spki).digest('base64url');
  const exported = keys.publicKey.export({ format: 'jwk' });
  const jwk: RsaJwk = { use: 'sig', kty: 'RSA', kid, alg: 'RS256', n: exported.n ?? '', e: exported.e ?? '' };
  const header = base64url(JSON.stringify({ alg: 'RS256', kid }));
  return {
    kid,
    publicKeyPem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    jwk,
    async sign(claims) {
      const signingInput = `${header}.${base64url(JSON.stringify(claims))}`;
      // RSASSA-PKCS1-v1_5 with SHA-256: an RSA key's default padding.
      return `${signingInput}.${base64url(sign('sha256', Buffer.from(signingInput), keys.privateKey))}`;
    },
    async verify(token) {
      const parts = token.split('.');
      if (parts.length !== 3) throw new Error('token is not a compact JWS (three dot-separated parts)');
      const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
      const jwsHeader = decodeJson(headerPart, 'header') as JwtHeader;
      if (jwsHeader.alg !== 'RS256') throw new Error(`token alg ${String(jwsHeader.alg)} is not RS256`);
      if (jwsHeader.kid !== undefined && jwsHeader.kid !== kid) throw new Error(`token kid ${String(jwsHeader.kid)} is not this server's key`);
      const valid = verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), keys.publicKey, Buffer.from(signaturePart, 'base64url'));
      if (!valid) throw new Error('token signature does not verify with the server key');
      return decodeJson(payloadPart, 'payload');
    },
  };
}
