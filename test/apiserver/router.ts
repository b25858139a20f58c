/**
 * Maps REST requests onto the store: `/api/v1/...` and `/apis/<group>/<version>/...`, collection
 * and item verbs, the status subresource, watch, TokenReview and SubjectAccessReview, a service
 * account's token subresource and the issuer discovery documents (/.well-known/openid-configuration,
 * /openid/v1/jwks). Answers are JSON; failures are Status bodies with their code (the store throws ApiError).
 */
import type { ServerResponse } from 'node:http';
import { isObject } from './json.js';
import { answerSubjectAccessReview, answerTokenReview, type Reviews } from './reviews.js';
import { apiVersionOf, findResource, RESOURCES, type KubeObject, type ResourceDef } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { ApiError, apiErrors, successStatus } from './status.js';
import type { DeleteOptions, ObjectStore } from './store.js';
import type { WatchHub } from './watch.js';

export interface ApiRequest {
  method: string;
  pathname: string;
  query: URLSearchParams;
  contentType: string;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** Who sent it (a CSR records its requester). */
  user?: { username: string; groups: string[] };
}

interface Target {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface RouterDeps {
  store: ObjectStore;
  watches: WatchHub;
  reviews: Reviews;
  tokens: ServiceAccountTokens;
  /** The server's own address, for the JWKS URI of the discovery document. */
  externalUrl: string;
}

const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
const JWKS_PATH = '/openid/v1/jwks';

function send(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof ApiError) {
    send(res, err.code, err.status);
    return;
  }
  send(res, 500, new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: err instanceof Error ? err.message : String(err), reason: 'InternalError', code: 500 }).status);
}

/** group, version and the rest of the path, or undefined when it is not an API path. */
function splitApiPath(pathname: string): { group: string; version: string; rest: string[] } | undefined {
  const parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  if (parts[0] === 'api' && parts[1] !== undefined) return { group: '', version: parts[1], rest: parts.slice(2) };
  if (parts[0] === 'apis' && parts[1] !== undefined && parts[2] !== undefined) {
    return { group: parts[1], version: parts[2], rest: parts.slice(3) };
  }
  return undefined;
}

function resolveTarget(group: string, version: string, rest: string[]): Target {
  // /namespaces/<ns>/<resource>[/<name>[/<sub>]] unless it is the namespace itself (/namespaces/<name>[/status]).
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
    const def = findResource(group, version, rest[2] as string);
    if (def === undefined || !def.namespaced) throw apiErrors.pathNotFound();
    if (rest.length > 5) throw apiErrors.pathNotFound();
    return { def, namespace: rest[1] as string, ...(rest[3] ? { name: rest[3] } : {}), ...(rest[4] ? { subresource: rest[4] } : {}) };
  }
  const def = findResource(group, version, rest[0] ?? '');
  if (def === undefined || rest.length > 3) throw apiErrors.pathNotFound();
  // A namespaced resource without a namespace is only a collection (the all-namespaces list/watch).
  if (def.namespaced && rest.length > 1) throw apiErrors.pathNotFound();
  return { def, ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { subresource: rest[2] } : {}) };
}

function listBody(def: ResourceDef, items: KubeObject[], resourceVersion: string): unknown {
  // The API server's list items carry no kind/apiVersion; the list does.
  const bare = items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  return { kind: `${def.kind}List`, apiVersion: apiVersionOf(def), metadata: { resourceVersion }, items: bare };
}

function discovery(group: string, version: string): unknown {
  const resources = RESOURCES.filter((r) => r.group === group && r.version === version).flatMap((r) => {
    const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
    const main = { name: r.resource, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs };
    const status = { name: `${r.resource}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] };
    const token = { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] };
    return [main, ...(r.hasStatus ? [status] : []), ...(r.storage === 'serviceaccounts' ? [token] : [])];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}

function groupList(): unknown {
  const groups = [...new Set(RESOURCES.filter((r) => r.group !== '').map((r) => `${r.group}/${r.version}`))]
    .concat(['authentication.k8s.io/v1', 'authorization.k8s.io/v1'])
    .map((gv) => {
      const [name] = gv.split('/');
      const version = { groupVersion: gv, version: gv.split('/')[1] };
      return { name, versions: [version], preferredVersion: version };
    });
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

function requireObject(body: unknown): KubeObject {
  if (!isObject(body)) throw apiErrors.badRequest('the request body must be a JSON object');
  return body as KubeObject;
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw apiErrors.badRequest(`invalid ${name}: ${v}`);
  return n;
}

function deleteOptions(req: ApiRequest): DeleteOptions {
  const body = isObject(req.body) ? (req.body as { gracePeriodSeconds?: number; preconditions?: DeleteOptions['preconditions'] }) : {};
  const grace = intParam(req.query, 'gracePeriodSeconds') ?? body.gracePeriodSeconds;
  return { ...(grace !== undefined ? { gracePeriodSeconds: grace } : {}), ...(body.preconditions ? { preconditions: body.preconditions } : {}) };
}

function handleReview(deps: RouterDeps, req: ApiRequest, res: ServerResponse, group: string, rest: string[]): boolean {
  const kind = `${group}/${rest[0] ?? ''}`;
  if (kind !== 'authentication.k8s.io/tokenreviews' && kind !== 'authorization.k8s.io/subjectaccessreviews') return false;
  if (req.method !== 'POST' || rest.length !== 1) throw apiErrors.methodNotAllowed();
  const body = requireObject(req.body);
  send(res, 201, kind.endsWith('tokenreviews') ? answerTokenReview(deps.reviews, body) : answerSubjectAccessReview(deps.reviews, body));
  return true;
}

/** Serves one authenticated API request. Resolves false when the path is not an API path. */
export async function route(deps: RouterDeps, req: ApiRequest, res: ServerResponse): Promise<boolean> {
  if (req.pathname === OPENID_CONFIGURATION_PATH || req.pathname === JWKS_PATH) {
    if (req.method !== 'GET') throw apiErrors.methodNotAllowed();
    if (req.pathname === JWKS_PATH) send(res, 200, await deps.tokens.jwks(), 'application/jwk-set+json');
    else send(res, 200, deps.tokens.openidConfiguration(`${deps.externalUrl}${JWKS_PATH}`));
    return true;
  }
  if (req.pathname === '/api' || req.pathname === '/api/') {
    send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    return true;
  }
  if (req.pathname === '/apis' || req.pathname === '/apis/') {
    send(res, 200, groupList());
    return true;
  }
  const api = splitApiPath(req.pathname);
  if (api === undefined) return false;
  const { group, version, rest } = api;
  if (rest.length === 0) {
    send(res, 200, discovery(group, version));
    return true;
  }
  if (handleReview(deps, req, res, group, rest)) return true;
  const target = resolveTarget(group, version, rest);
  if (target.subresource === 'token' && target.def.storage === 'serviceaccounts' && target.name !== undefined) {
    if (req.method !== 'POST') throw apiErrors.methodNotAllowed();
    const body = requireObject(req.body ?? {});
    send(res, 201, await deps.tokens.create(target.namespace as string, target.name, body, req.user));
    return true;
  }
  if (target.name === undefined) collection(deps, req, res, target);
  else item(deps, req, res, target as Target & { name: string });
  return true;
}

function collection(deps: RouterDeps, req: ApiRequest, res: ServerResponse, t: Target): void {
  const { def } = t;
  if (req.method === 'GET') {
    const labelSelector = req.query.get('labelSelector') ?? undefined;
    const fieldSelector = req.query.get('fieldSelector') ?? undefined;
    const watch = req.query.get('watch');
    if (watch === 'true' || watch === '1') {
      const rv = req.query.get('resourceVersion') ?? undefined;
      if (rv !== undefined && rv !== '' && !/^[0-9]+$/.test(rv)) throw apiErrors.badRequest(`invalid resource version: ${rv}`);
      const timeoutSeconds = intParam(req.query, 'timeoutSeconds');
      deps.watches.open({
        def,
        selection: {
          labels: parseLabelSelector(labelSelector),
          fields: parseFieldSelector(fieldSelector, def),
          ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
        },
        resourceVersion: rv,
        allowBookmarks: req.query.get('allowWatchBookmarks') === 'true',
        sendInitialEvents: req.query.get('sendInitialEvents') === 'true',
        timeoutSeconds,
      }, res);
      return;
    }
    const { items, resourceVersion } = deps.store.list(def, {
      ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector } : {}),
    });
    send(res, 200, listBody(def, items, resourceVersion));
    return;
  }
  if (req.method === 'POST') {
    if (def.namespaced && t.namespace === undefined) throw apiErrors.methodNotAllowed();
    if (def.namespaced && deps.store.get('namespaces', undefined, t.namespace as string) === undefined) {
      throw apiErrors.notFound('', 'namespaces', t.namespace as string);
    }
    const body = requireObject(req.body);
    if (def.storage === 'certificatesigningrequests') withRequester(body, req.user);
    send(res, 201, deps.store.create(def, body, t.namespace));
    return;
  }
  throw apiErrors.methodNotAllowed();
}

/** The API server fills a CSR's spec.username and spec.groups from who created it, whatever the body said. */
function withRequester(csr: KubeObject, user: ApiRequest['user']): void {
  const spec = isObject(csr.spec) ? csr.spec : {};
  csr.spec = { ...spec, username: user?.username ?? '', groups: user?.groups ?? [] };
}

function item(deps: RouterDeps, req: ApiRequest, res: ServerResponse, t: Target & { name: string }): void {
  const { def, namespace, name, subresource } = t;
  // A CSR's approval subresource writes its conditions as the status subresource writes the rest
  // (a real API server keeps the two apart: only conditions through approval, only the certificate through status).
  const approval = subresource === 'approval' && def.storage === 'certificatesigningrequests';
  if (subresource !== undefined && !(subresource === 'status' && def.hasStatus) && !approval) throw apiErrors.pathNotFound();
  const mode = subresource === 'status' || approval ? 'status' : 'main';
  switch (req.method) {
    case 'GET': {
      const obj = deps.store.get(def, namespace, name);
      if (obj === undefined) throw apiErrors.notFound(def.group, def.resource, name);
      send(res, 200, obj);
      return;
    }
    case 'PUT': {
      const body = requireObject(req.body);
      const bodyName = body.metadata?.name;
      if (bodyName !== undefined && bodyName !== name) {
        throw apiErrors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
      }
      const bodyNs = body.metadata?.namespace;
      if (def.namespaced && bodyNs !== undefined && bodyNs !== namespace) {
        throw apiErrors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      send(res, 200, deps.store.update(def, body, mode, namespace, name));
      return;
    }
    case 'PATCH':
      send(res, 200, deps.store.patch(def, namespace, name, req.contentType, req.body, mode));
      return;
    case 'DELETE': {
      if (subresource !== undefined) throw apiErrors.methodNotAllowed();
      const { object } = deps.store.delete(def, namespace, name, deleteOptions(req));
      if (def.deleteReturnsObject) send(res, 200, object);
      else {
        send(res, 200, successStatus({ name, ...(def.group !== '' ? { group: def.group } : {}), kind: def.resource,
          ...(object.metadata?.uid !== undefined ? { uid: object.metadata.uid } : {}) }));
      }
      return;
    }
    default:
      throw apiErrors.methodNotAllowed();
  }
}
