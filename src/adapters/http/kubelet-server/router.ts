/**
 * The kubelet server's routing table: a route is its methods and a path pattern of literal
 * segments, `:name` segments (one non-empty segment, percent-decoded) and a final `*` (one or more
 * segments, whatever they hold). A path with no literal-only route is matched against the others in
 * the order they were added. GET routes answer HEAD too (Node sends no body for HEAD).
 *
 * Small on purpose: the server has a fixed set of about thirty paths, so a list scanned per request
 * costs less than a framework's radix tree costs to load.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';

export interface RouteRequest {
  readonly raw: IncomingMessage;
  /** The pattern's `:name` segments, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The query as node:querystring parses it: a repeated key is an array. */
  readonly query: ParsedUrlQuery;
  /** The URL's path as the client sent it, not decoded, without the query. */
  readonly rawPath: string;
}

/** Answers through `res`; what it returns (or rejects with) is awaited by the server. */
export type RouteHandler = (req: RouteRequest, res: ServerResponse) => unknown;

export type RouteMethods = readonly string[] | 'ALL';

export interface RouteMatch {
  handler: RouteHandler;
  params: Record<string, string>;
}

export interface Router {
  add(methods: RouteMethods, pattern: string, handler: RouteHandler): void;
  get(pattern: string, handler: RouteHandler): void;
  /** The route for the path's decoded segments; `wrongMethod` when only other methods have one. */
  find(method: string, segments: readonly string[]): RouteMatch | 'wrongMethod' | undefined;
}

interface Route {
  methods: RouteMethods;
  segments: readonly string[];
  literal: boolean;
  handler: RouteHandler;
}

function allows(methods: RouteMethods, method: string): boolean {
  if (methods === 'ALL') return true;
  return methods.includes(method) || (method === 'HEAD' && methods.includes('GET'));
}

/** The params when `path` fits `pattern`, else undefined. */
function fit(pattern: readonly string[], path: readonly string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p === '*' && i === pattern.length - 1) return path.length > i ? params : undefined;
    const s = path[i];
    if (s === undefined) return undefined;
    if (p.startsWith(':')) {
      if (s === '') return undefined;
      params[p.slice(1)] = s;
    } else if (p !== s) {
      return undefined;
    }
  }
  return path.length === pattern.length ? params : undefined;
}

export function createRouter(): Router {
  const routes: Route[] = [];
  const add = (methods: RouteMethods, pattern: string, handler: RouteHandler) => {
    const segments = pattern.split('/');
    routes.push({ methods, segments, literal: segments.every((s) => s !== '*' && !s.startsWith(':')), handler });
  };
  return {
    add,
    get: (pattern, handler) => add(['GET'], pattern, handler),
    find(method, segments) {
      let wrongMethod = false;
      for (const literalPass of [true, false]) {
        for (const route of routes) {
          if (route.literal !== literalPass) continue;
          const params = fit(route.segments, segments);
          if (!params) continue;
          if (allows(route.methods, method)) return { handler: route.handler, params };
          wrongMethod = true;
        }
      }
      return wrongMethod ? 'wrongMethod' : undefined;
    },
  };
}

/** The path's segments, each percent-decoded; undefined when one does not decode. */
export function pathSegments(rawPath: string): string[] | undefined {
  const segments = rawPath.split('/');
  try {
    return rawPath.includes('%') ? segments.map(decodeURIComponent) : segments;
  } catch {
    return undefined;
  }
}
