/**
 * The `serviceaccounts/<name>/token` subresource and the tokens it issues, as the Go API server's
 * TokenREST (pkg/registry/core/serviceaccount/storage/token.go) and claims (pkg/serviceaccount/claims.go):
 *
 * - the body's metadata.name / namespace, when given, must be the URL's (422); the ServiceAccount
 *   must exist (404); expirationSeconds defaults to 3600 and must be within [600, 2^32] (422);
 *   audiences default to the API server's (--api-audiences, itself defaulting to the issuer);
 * - boundObjectRef may name a Pod, a Node or a Secret of core/v1 (another kind is 400); it must exist
 *   (404) and have the given uid if one is given (409); a Pod must run as this service account
 *   (400; an empty serviceAccountName counts as "default", which admission would have set);
 * - a pod-bound token carries the pod, and the node the pod is bound to: with its uid when that
 *   Node exists, its name alone when not (ServiceAccountTokenPodNodeInfo, on since 1.30);
 * - a pod-bound request for 3607 s with only API server audiences gets a token valid a year with a
 *   `warnafter` claim at 3607 s (--service-account-extend-token-expiration, on by default), while
 *   status.expirationTimestamp still says 3607 s: the kubelet's projected tokens look like this.
 *
 * Every request is recorded (who asked, for what, and what was answered) for tests to assert.
 * Not modelled: authorization (any authenticated user may ask for any service account, where the
 * node authorizer limits a kubelet to its pods), --service-account-max-token-expiration, and
 * accepting the issued tokens as credentials.
 */
import { randomUUID } from 'node:crypto';
import { invalidObject, type FieldError } from './field-errors.js';
import { isObject } from './json.js';
import { createJwtSigner, type JwtSigner, type RsaJwk } from './jwt.js';
import type { KubeObject } from './resources.js';
import { ApiError, apiErrors } from './status.js';
import { rfc3339, type ObjectStore } from './store.js';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** What a projected token asks for when it may be extended (Go's WarnOnlyBoundTokenExpirationSeconds). */
const WARN_ONLY_EXPIRATION_SECONDS = 3607;
/** What such a token is extended to (Go's ExpirationExtensionSeconds). */
const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600;
/** The clock skew go-jose allows when a token is checked (jwt.DefaultLeeway). */
const LEEWAY_SECONDS = 60;

export interface ServiceAccountTokenOptions {
  /** The `iss` claim (--service-account-issuer). */
  issuer?: string;
  /** The audiences a TokenRequest without any gets (--api-audiences); default [issuer]. */
  audiences?: readonly string[];
  /** --service-account-extend-token-expiration (default true, as kube-apiserver). */
  extendExpiration?: boolean;
  now?: () => Date;
}

export interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface ObjectClaim {
  name: string;
  uid?: string;
}

/** The private `kubernetes.io` claim. */
export interface KubernetesClaim {
  namespace: string;
  node?: ObjectClaim;
  pod?: ObjectClaim;
  secret?: ObjectClaim;
  serviceaccount: ObjectClaim;
  /** Seconds since the epoch after which an extended token is reported stale. */
  warnafter?: number;
}

/** A service account token's claims, in the order the Go API server writes them (sorted). */
export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': KubernetesClaim;
  nbf: number;
  sub: string;
}

export interface TokenRequestRecord {
  /** Who asked: the authenticated user. */
  user: { username: string; groups: string[] } | undefined;
  namespace: string;
  serviceAccount: string;
  /** The object the token was to be bound to, as the request named it. */
  boundObjectRef?: BoundObjectRef;
  /** After defaulting. */
  audiences: string[];
  expirationSeconds: number;
  /** 201 when a token was issued, else the error's HTTP code. */
  status: number;
  token?: string;
  expirationTimestamp?: string;
}

interface Binding {
  pod?: ObjectClaim;
  node?: ObjectClaim;
  secret?: ObjectClaim;
}

const refOf = (obj: KubeObject): ObjectClaim => {
  const { name = '', uid } = obj.metadata ?? {};
  return uid ? { name, uid } : { name };
};

function groupVersionOf(apiVersion: string | undefined): { group: string; version: string } {
  const parts = (apiVersion ?? '').split('/');
  return parts.length === 2 ? { group: parts[0] as string, version: parts[1] as string } : { group: '', version: parts[0] as string };
}

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** Every TokenRequest received, in order (a test may clear it with `requests.length = 0`). */
  readonly requests: TokenRequestRecord[] = [];
  private readonly extendExpiration: boolean;
  private readonly now: () => Date;
  private signer: Promise<JwtSigner> | undefined;

  constructor(private readonly store: ObjectStore, opts: ServiceAccountTokenOptions = {}) {
    this.issuer = opts.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.audiences = opts.audiences ?? [this.issuer];
    this.extendExpiration = opts.extendExpiration ?? true;
    this.now = opts.now ?? (() => new Date());
  }

  /** The signing key, made on first use: RSA key generation is too slow to pay on every start. */
  private key(): Promise<JwtSigner> {
    return (this.signer ??= createJwtSigner());
  }

  /** Answers a TokenRequest POSTed for the service account `name` in `namespace`. */
  async create(namespace: string, name: string, body: KubeObject, user?: TokenRequestRecord['user']): Promise<KubeObject> {
    const spec = isObject(body.spec) ? (body.spec as Record<string, unknown>) : {};
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [...this.audiences];
    const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
      throw apiErrors.badRequest('TokenRequest in version "v1" cannot be handled as a TokenRequest: spec.expirationSeconds must be an integer');
    }
    const boundObjectRef = isObject(spec.boundObjectRef) ? (spec.boundObjectRef as BoundObjectRef) : undefined;
    const record: TokenRequestRecord = {
      user, namespace, serviceAccount: name, ...(boundObjectRef ? { boundObjectRef } : {}), audiences, expirationSeconds, status: 0,
    };
    this.requests.push(record);
    try {
      const answer = await this.issue(namespace, name, body, { audiences, expirationSeconds, boundObjectRef });
      const status = answer.status as { token: string; expirationTimestamp: string };
      Object.assign(record, { status: 201, token: status.token, expirationTimestamp: status.expirationTimestamp });
      return answer;
    } catch (err) {
      record.status = err instanceof ApiError ? err.code : 500;
      throw err;
    }
  }

  private async issue(namespace: string, name: string, body: KubeObject,
    spec: { audiences: string[]; expirationSeconds: number; boundObjectRef: BoundObjectRef | undefined }): Promise<KubeObject> {
    const meta = body.metadata ?? {};
    if (meta.name && meta.name !== name) {
      throw invalidObject('authentication.k8s.io', 'TokenRequest', name,
        [{ type: 'Invalid', field: 'metadata.name', value: meta.name, detail: 'must match the service account name if specified' }]);
    }
    if (meta.namespace && meta.namespace !== namespace) {
      throw invalidObject('authentication.k8s.io', 'TokenRequest', name,
        [{ type: 'Invalid', field: 'metadata.namespace', value: meta.namespace, detail: 'must match the service account namespace if specified' }]);
    }
    const serviceAccount = this.store.get('serviceaccounts', namespace, name);
    if (serviceAccount === undefined) throw apiErrors.notFound('', 'serviceaccounts', name);
    const now = this.now();
    const errors = this.validateExpiration(spec.expirationSeconds);
    if (errors.length > 0) throw invalidObject('authentication.k8s.io', 'TokenRequest', '', errors);
    const binding = spec.boundObjectRef === undefined ? {} : this.bind(spec.boundObjectRef, namespace, name);

    const extended = this.extendExpiration && binding.pod !== undefined && spec.expirationSeconds === WARN_ONLY_EXPIRATION_SECONDS
      && spec.audiences.every((a) => this.audiences.includes(a));
    const iat = Math.floor(now.getTime() / 1000);
    const claims: ServiceAccountClaims = {
      aud: spec.audiences,
      exp: iat + (extended ? EXTENDED_EXPIRATION_SECONDS : spec.expirationSeconds),
      iat,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': {
        namespace,
        ...(binding.node ? { node: binding.node } : {}),
        ...(binding.pod ? { pod: binding.pod } : {}),
        ...(binding.secret ? { secret: binding.secret } : {}),
        serviceaccount: refOf(serviceAccount),
        ...(extended ? { warnafter: iat + spec.expirationSeconds } : {}),
      },
      nbf: iat,
      sub: `system:serviceaccount:${namespace}:${name}`,
    };
    const token = await (await this.key()).sign(claims as unknown as Record<string, unknown>);
    return {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...meta, name, namespace, creationTimestamp: rfc3339(now) },
      spec: {
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        ...(spec.boundObjectRef ? { boundObjectRef: spec.boundObjectRef } : {}),
      },
      status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + spec.expirationSeconds * 1000)) },
    };
  }

  /** Go's ValidateTokenRequest. */
  private validateExpiration(seconds: number): FieldError[] {
    if (seconds < MIN_EXPIRATION_SECONDS) {
      return [{ type: 'Invalid', field: 'spec.expirationSeconds', value: seconds, detail: 'may not specify a duration less than 10 minutes' }];
    }
    if (seconds > MAX_EXPIRATION_SECONDS) {
      return [{ type: 'Invalid', field: 'spec.expirationSeconds', value: seconds, detail: 'may not specify a duration larger than 2^32 seconds' }];
    }
    return [];
  }

  /** The claims a boundObjectRef adds, after Go's checks of the object it names. */
  private bind(ref: BoundObjectRef, namespace: string, serviceAccount: string): Binding {
    const { group, version } = groupVersionOf(ref.apiVersion);
    const kind = ref.kind ?? '';
    const name = ref.name ?? '';
    let found: KubeObject | undefined;
    let binding: Binding;
    if (group === '' && kind === 'Pod') {
      found = this.store.get('pods', namespace, name);
      if (found === undefined) throw apiErrors.notFound('', 'pods', name);
      const spec = (found.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
      if ((spec.serviceAccountName || 'default') !== serviceAccount) {
        throw apiErrors.badRequest(`cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`);
      }
      const node = spec.nodeName ? this.store.get('nodes', undefined, spec.nodeName) : undefined;
      binding = { pod: refOf(found), ...(spec.nodeName ? { node: node ? refOf(node) : { name: spec.nodeName } } : {}) };
    } else if (group === '' && kind === 'Node') {
      found = this.store.get('nodes', undefined, name);
      if (found === undefined) throw apiErrors.notFound('', 'nodes', name);
      binding = { node: refOf(found) };
    } else if (group === '' && kind === 'Secret') {
      found = this.store.get('secrets', namespace, name);
      if (found === undefined) throw apiErrors.notFound('', 'secrets', name);
      binding = { secret: refOf(found) };
    } else {
      throw apiErrors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    if (ref.uid && ref.uid !== found.metadata?.uid) {
      throw apiErrors.conflict(group, kind, name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. `
        + 'The object might have been deleted and then recreated');
    }
    return binding;
  }

  /**
   * The claims of `token` once its signature is the server's key, its issuer the server's and the
   * time (default: the server's clock) within nbf..exp, with go-jose's minute of leeway; with
   * `audience`, also that `aud` holds it. Rejects with why otherwise.
   */
  async verify(token: string, opts: { audience?: string; now?: Date } = {}): Promise<ServiceAccountClaims> {
    const claims = (await (await this.key()).verify(token)) as unknown as ServiceAccountClaims;
    if (claims.iss !== this.issuer) throw new Error(`token issuer ${String(claims.iss)} is not ${this.issuer}`);
    const now = Math.floor((opts.now ?? this.now()).getTime() / 1000);
    if (typeof claims.exp !== 'number' || now - LEEWAY_SECONDS > claims.exp) throw new Error('service account token has expired');
    if (typeof claims.nbf === 'number' && now + LEEWAY_SECONDS < claims.nbf) throw new Error('service account token is not valid yet');
    if (opts.audience !== undefined && !(claims.aud ?? []).includes(opts.audience)) {
      throw new Error(`token audiences ${JSON.stringify(claims.aud)} do not include ${opts.audience}`);
    }
    return claims;
  }

  /** The JSON Web Key Set of the signing key, as /openid/v1/jwks serves it. */
  async jwks(): Promise<{ keys: RsaJwk[] }> {
    return { keys: [(await this.key()).jwk] };
  }

  /** The signing key's public half, PEM (SPKI), as --service-account-key-file would hold it. */
  async publicKeyPem(): Promise<string> {
    return (await this.key()).publicKeyPem;
  }

  /** The service account issuer discovery document (/.well-known/openid-configuration). */
  openidConfiguration(jwksUri: string): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: jwksUri,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }
}
