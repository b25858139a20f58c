/**
 * `metav1.Status` bodies and the error type that carries one through the test API server.
 *
 * Reasons and messages follow k8s.io/apimachinery/pkg/api/errors (NewNotFound, NewAlreadyExists,
 * NewConflict, NewResourceExpired, …) because clients (client-node, and our own error map from
 * HTTP status to KLT_ERR_API_*) branch on `code` and `reason`.
 */

/** One field's failure in a 422 Invalid Status (metav1.StatusCause). */
export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** The reason the Go API server gives for an HTTP status it did not pick a more specific reason for. */
const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export function statusBody(code: number, message: string, reason?: string, details?: StatusDetails): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  const r = reason ?? REASON_BY_CODE[code];
  if (r !== undefined) body.reason = r;
  if (details !== undefined) body.details = details;
  return body;
}

export function successStatus(details: StatusDetails): StatusBody {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}

/** A failure answered as a Status body with its HTTP code. */
export class ApiError extends Error {
  constructor(readonly status: StatusBody) {
    super(status.message);
    this.name = 'ApiError';
  }
  get code(): number {
    return this.status.code;
  }
}

/** "pods" or "leases.coordination.k8s.io", as Go's GroupResource.String() prints it in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

function details(group: string, resource: string, name: string): StatusDetails {
  return group === '' ? { name, kind: resource } : { name, group, kind: resource };
}

export const apiErrors = {
  notFound: (group: string, resource: string, name: string) =>
    new ApiError(statusBody(404, `${qualifiedResource(group, resource)} "${name}" not found`, 'NotFound', details(group, resource, name))),
  alreadyExists: (group: string, resource: string, name: string) =>
    new ApiError(statusBody(409, `${qualifiedResource(group, resource)} "${name}" already exists`, 'AlreadyExists', details(group, resource, name))),
  conflict: (group: string, resource: string, name: string, why: string) =>
    new ApiError(statusBody(409, `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`, 'Conflict', details(group, resource, name))),
  badRequest: (message: string) => new ApiError(statusBody(400, message, 'BadRequest')),
  invalid: (message: string) => new ApiError(statusBody(422, message, 'Invalid')),
  unsupportedMediaType: (message: string) => new ApiError(statusBody(415, message, 'UnsupportedMediaType')),
  methodNotAllowed: () => new ApiError(statusBody(405, 'the server does not allow this method on the requested resource', 'MethodNotAllowed')),
  unauthorized: () => new ApiError(statusBody(401, 'Unauthorized', 'Unauthorized')),
  /** What a watch from a compacted resourceVersion gets, as an ERROR event (the watch cache's "too old"). */
  expired: (requested: string, oldest: string) =>
    new ApiError(statusBody(410, `too old resource version: ${requested} (${oldest})`, 'Expired')),
  pathNotFound: () => new ApiError(statusBody(404, 'the server could not find the requested resource', 'NotFound', {})),
};

/** The optimistic-concurrency message the Go registry uses for a stale resourceVersion. */
export const STALE_OBJECT_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';
