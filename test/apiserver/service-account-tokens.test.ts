/**
 * The serviceaccounts/<name>/token subresource: tokens are RS256 JWTs with the claims of the Go API
 * server's bound tokens, checked as Go checks the request, verifiable with the server's key (through
 * server.tokens and independently from the JWKS it serves), and every request is recorded.
 */
import './node20-compat.js';
import { createPublicKey, verify as verifySignature, type JsonWebKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticationV1TokenRequest } from '@kubernetes/client-node';
import { clientsFor, failureOf, type Clients } from './client-helpers.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, startTestApiServer, TOKEN_USER, type TestApiServer } from './index.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const IAT = NOW.getTime() / 1000;

let server: TestApiServer;
let c: Clients;

beforeAll(async () => {
  server = await startTestApiServer({ now: () => NOW });
  c = clientsFor(server);
  server.store.create('nodes', { metadata: { name: 'n1' } });
  server.store.create('serviceaccounts', { metadata: { name: 'app', namespace: 'default' } });
  server.store.create('pods', { metadata: { name: 'web', namespace: 'default' },
    spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'i' }] } });
  server.store.create('pods', { metadata: { name: 'orphan', namespace: 'default' },
    spec: { nodeName: 'gone', serviceAccountName: 'app', containers: [{ name: 'c', image: 'i' }] } });
}, 30_000);

afterAll(async () => {
  await server.close();
});

const uidOf = (ref: 'pods' | 'nodes' | 'serviceaccounts', name: string) =>
  server.store.get(ref, ref === 'nodes' ? undefined : 'default', name)?.metadata?.uid as string;

function requestToken(sa: string, spec: Partial<AuthenticationV1TokenRequest['spec']> = {}): Promise<AuthenticationV1TokenRequest> {
  return c.core.createNamespacedServiceAccountToken({ name: sa, namespace: 'default', body: { spec: { audiences: [], ...spec } } });
}

function decodePart(token: string, index: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('test API server: serviceaccounts/token', () => {
  it('answers a TokenRequest with a signed token and its expiration, defaults applied', async () => {
    const answer = await requestToken('app');
    expect(answer).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'app', namespace: 'default' },
      spec: { audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER], expirationSeconds: 3600 } });
    expect(answer.status?.expirationTimestamp).toEqual(new Date('2026-03-01T13:00:00Z'));
    const token = answer.status?.token ?? '';
    expect(decodePart(token, 0)).toEqual({ alg: 'RS256', kid: (await server.tokens.jwks()).keys[0]?.kid });

    const claims = await server.tokens.verify(token);
    expect(claims).toEqual({
      aud: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
      exp: IAT + 3600,
      iat: IAT,
      iss: DEFAULT_SERVICE_ACCOUNT_ISSUER,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'app', uid: uidOf('serviceaccounts', 'app') } },
      nbf: IAT,
      sub: 'system:serviceaccount:default:app',
    });
    // Keys in the order the Go API server writes them (go-jose marshals a map: sorted).
    expect(Object.keys(decodePart(token, 1))).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  });

  it('binds a token to a pod and the node it runs on, with their uids', async () => {
    const answer = await requestToken('app', { audiences: ['vault'], expirationSeconds: 600,
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: uidOf('pods', 'web') } });
    const claims = await server.tokens.verify(answer.status?.token ?? '', { audience: 'vault' });
    expect(claims.aud).toEqual(['vault']);
    expect(claims.exp).toBe(IAT + 600);
    expect(claims['kubernetes.io']).toEqual({
      namespace: 'default',
      node: { name: 'n1', uid: uidOf('nodes', 'n1') },
      pod: { name: 'web', uid: uidOf('pods', 'web') },
      serviceaccount: { name: 'app', uid: uidOf('serviceaccounts', 'app') },
    });
  });

  it('names the node alone when the pod is bound to a node that does not exist, as Go does', async () => {
    const answer = await requestToken('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'orphan' } });
    const claims = await server.tokens.verify(answer.status?.token ?? '');
    expect(claims['kubernetes.io'].node).toEqual({ name: 'gone' });
  });

  it('extends a pod-bound 3607 s token to a year with warnafter, while the status says 3607 s', async () => {
    const answer = await requestToken('app', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } });
    expect(answer.status?.expirationTimestamp).toEqual(new Date((IAT + 3607) * 1000));
    const claims = await server.tokens.verify(answer.status?.token ?? '');
    expect(claims.exp).toBe(IAT + 365 * 24 * 3600);
    expect(claims['kubernetes.io'].warnafter).toBe(IAT + 3607);
  });

  it.each([
    ['a missing service account', 'nobody', {}, 404, 'serviceaccounts "nobody" not found'],
    ['a missing bound pod', 'app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } }, 404, 'pods "nope" not found'],
    ['a bound pod of another uid', 'app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'not-the-uid' } }, 409,
      'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (not-the-uid) does not match the UID in record. '
      + 'The object might have been deleted and then recreated'],
    ['a pod of another service account', 'default', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } }, 400,
      'cannot bind token for serviceaccount "default" to pod running with different serviceaccount name.'],
    ['a kind that cannot be bound', 'app', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }, 400,
      'cannot bind token to object of type /v1, Kind=ConfigMap'],
    ['expirationSeconds under 10 minutes', 'app', { expirationSeconds: 599 }, 422,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes'],
    ['expirationSeconds over 2^32', 'app', { expirationSeconds: 2 ** 32 + 1 }, 422,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds'],
  ] as const)('refuses %s', async (_, sa, spec, code, message) => {
    const status = await failureOf(() => requestToken(sa, spec as Partial<AuthenticationV1TokenRequest['spec']>));
    expect(status).toMatchObject({ code, message });
  });

  it('records who asked, for which pod, audiences and expiration, and what was answered', async () => {
    server.tokens.requests.length = 0;
    const answer = await requestToken('app', { audiences: ['a'], expirationSeconds: 1200, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } });
    await failureOf(() => requestToken('app', { expirationSeconds: 10 }));
    expect(server.tokens.requests).toEqual([
      { user: TOKEN_USER, namespace: 'default', serviceAccount: 'app', boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' },
        audiences: ['a'], expirationSeconds: 1200, status: 201, token: answer.status?.token, expirationTimestamp: '2026-03-01T12:20:00Z' },
      { user: TOKEN_USER, namespace: 'default', serviceAccount: 'app', audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER], expirationSeconds: 10, status: 422 },
    ]);
  });
});

describe('test API server: token verification', () => {
  it('verifies a token independently with the key from /openid/v1/jwks, found through the discovery document', async () => {
    const token = (await requestToken('app')).status?.token ?? '';
    const get = async (path: string) => {
      const res = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${server.token}` } });
      return { type: res.headers.get('content-type'), json: (await res.json()) as Record<string, unknown> };
    };
    const discovery = await get('/.well-known/openid-configuration');
    expect(discovery.json).toMatchObject({ issuer: DEFAULT_SERVICE_ACCOUNT_ISSUER, jwks_uri: `${server.url}/openid/v1/jwks`,
      id_token_signing_alg_values_supported: ['RS256'] });
    const jwks = await get(new URL(discovery.json.jwks_uri as string).pathname);
    expect(jwks.type).toBe('application/jwk-set+json');
    const [jwk] = (jwks.json as { keys: Array<JsonWebKey & { kid: string }> }).keys;
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: decodePart(token, 0).kid });

    const [header, payload, signature] = token.split('.') as [string, string, string];
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    expect(verifySignature('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(key.export({ type: 'spki', format: 'pem' })).toBe(await server.tokens.publicKeyPem());
  });

  it('rejects a token whose payload was changed, one past its expiry, and one for another audience', async () => {
    const token = (await requestToken('app')).status?.token ?? '';
    const [header, , signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...decodePart(token, 1), sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
    await expect(server.tokens.verify(`${header}.${forged}.${signature}`)).rejects.toThrow(/signature/);
    await expect(server.tokens.verify(token, { now: new Date(NOW.getTime() + 3661_000) })).rejects.toThrow(/expired/);
    await expect(server.tokens.verify(token, { audience: 'vault' })).rejects.toThrow(/audiences/);
  });

  it('signs with the configured issuer and audiences', async () => {
    const other = await startTestApiServer({ serviceAccountIssuer: 'https://issuer.test', apiAudiences: ['api-a', 'api-b'] });
    try {
      const token = await other.tokens.create('default', 'default', { spec: {} });
      const claims = await other.tokens.verify((token.status as { token: string }).token);
      expect([claims.iss, claims.aud]).toEqual(['https://issuer.test', ['api-a', 'api-b']]);
      expect(other.tokens.issuer).toBe('https://issuer.test');
      await expect(server.tokens.verify((token.status as { token: string }).token)).rejects.toThrow(/kid|signature/);
    } finally {
      await other.close();
    }
  });
});
