/**
 * Who is asking and what they ask for, as the Go kubelet's authorizer sees a request to its server
 * (pkg/kubelet/server/auth.go, nodeAuthorizerAttributesGetter). Every request is a resource request
 * on `nodes/<subresource>` named after this node; the HTTP method gives the verb.
 *
 * Subresources, as Go picks them: `/stats/…` → stats, `/metrics/…` → metrics, `/logs/…` → log,
 * `/checkpoint/…` → checkpoint, anything else → proxy. With KubeletFineGrainedAuthz (on by default
 * since 1.33) `/pods`, `/runningpods/`, `/healthz`, `/configz` and `/statusz` first try their own
 * subresource (pods, pods, healthz, configz, statusz) and fall back to proxy: the request is allowed
 * when any one of the attribute sets is allowed.
 *
 * Go has no `nodes/spec`: `/spec` (when served) is authorized as proxy, and so is it here.
 */

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

export interface NodeRequestAttributes {
  user: UserInfo;
  /** get, create, update, patch, delete; '' for any other method, as Go leaves it. */
  verb: string;
  apiGroup: '';
  apiVersion: 'v1';
  resource: 'nodes';
  subresource: string;
  name: string;
  namespace: '';
  resourceRequest: true;
  path: string;
}

const VERB_BY_METHOD: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The API verb for an HTTP method; '' for HEAD, OPTIONS and the rest (Go's switch has no default). */
export function verbForMethod(method: string): string {
  return VERB_BY_METHOD[method.toUpperCase()] ?? '';
}

/** Go's isSubpath: `path` itself, or below it (`/stats` and `/stats/summary` are under `/stats/`). */
export function isSubpath(subpath: string, path: string): boolean {
  const base = path.endsWith('/') ? path.slice(0, -1) : path;
  return subpath === base || (subpath.startsWith(base) && subpath[base.length] === '/');
}

const FINE_GRAINED: ReadonlyArray<[string, string]> = [
  ['/pods', 'pods'],
  ['/healthz', 'healthz'],
  ['/configz', 'configz'],
  ['/statusz', 'statusz'],
  ['/runningpods/', 'pods'],
];

const COARSE: ReadonlyArray<[string, string]> = [
  ['/stats/', 'stats'],
  ['/metrics', 'metrics'],
  ['/logs/', 'log'],
  ['/checkpoint/', 'checkpoint'],
];

/** The subresources to try, in order; the first is the most specific. */
export function subresourcesForPath(path: string, fineGrained: boolean): string[] {
  const out: string[] = [];
  if (fineGrained) {
    const hit = FINE_GRAINED.find(([prefix]) => isSubpath(path, prefix));
    if (hit) out.push(hit[1]);
  }
  const coarse = COARSE.find(([prefix]) => isSubpath(path, prefix));
  out.push(coarse ? coarse[1] : 'proxy');
  return out;
}

/** One attribute set per subresource to try (Go's GetRequestAttributes). `path` excludes the query. */
export function nodeRequestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  nodeName: string,
  fineGrained = true,
): NodeRequestAttributes[] {
  const verb = verbForMethod(method);
  return subresourcesForPath(path, fineGrained).map((subresource) => ({
    user, verb, apiGroup: '', apiVersion: 'v1', resource: 'nodes', subresource, name: nodeName, namespace: '', resourceRequest: true, path,
  }));
}

/** The 403 body, word for word as the Go kubelet writes it. */
export function forbiddenMessage(attrs: readonly NodeRequestAttributes[]): string {
  const first = attrs[0];
  const subs = attrs.map((a) => a.subresource).join(' ');
  return `Forbidden (user=${first?.user.name ?? ''}, verb=${first?.verb ?? ''}, resource=nodes, subresource(s)=[${subs}])`;
}

/** The 500 body when the authorizer itself failed. */
export function authorizationErrorMessage(attr: NodeRequestAttributes): string {
  return `Authorization error (user=${attr.user.name}, verb=${attr.verb}, resource=${attr.resource}, subresource=${attr.subresource})`;
}

export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
/** Go's AuthenticatedGroupAdder puts every authenticated (non-anonymous) user in this group too. */
export const AUTHENTICATED_GROUP = 'system:authenticated';
