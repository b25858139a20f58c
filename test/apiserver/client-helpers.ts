/**
 * Helpers for tests that drive the test API server with @kubernetes/client-node: a client set
 * from the server's kubeconfig, the Status inside an ApiException, and a watch that collects events.
 */
import './node20-compat.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException, AuthenticationV1Api, AuthorizationV1Api, CoordinationV1Api, CoreV1Api, EventsV1Api, KubeConfig, Watch,
} from '@kubernetes/client-node';
import type { ClientCertificate } from './pki.js';
import type { StatusBody } from './status.js';
import type { TestApiServer } from './server.js';

export interface Clients {
  kc: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  events: EventsV1Api;
  authn: AuthenticationV1Api;
  authz: AuthorizationV1Api;
}

/** Writes a kubeconfig for `server` into a fresh temp dir and loads it, as the kubelet would. */
export function clientsFor(server: TestApiServer, opts: { clientCertificate?: ClientCertificate } = {}): Clients {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-apiserver-'));
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(server.kubeconfigPath(dir, opts));
  } finally {
    // Loaded into memory; the certificate files it names live in the server's PKI directory.
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    kc,
    core: kc.makeApiClient(CoreV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    events: kc.makeApiClient(EventsV1Api),
    authn: kc.makeApiClient(AuthenticationV1Api),
    authz: kc.makeApiClient(AuthorizationV1Api),
  };
}

/** The Status an ApiException carries (client-node gives the body as text), or undefined. */
export function statusOf(err: unknown): StatusBody | undefined {
  if (!(err instanceof ApiException)) return undefined;
  const body: unknown = err.body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody;
    } catch {
      return undefined;
    }
  }
  return body as StatusBody;
}

/** Runs `fn` and returns the Status it failed with; fails the test if it succeeded. */
export async function failureOf(fn: () => Promise<unknown>): Promise<StatusBody> {
  try {
    await fn();
  } catch (err) {
    const status = statusOf(err);
    if (status === undefined) throw err;
    return status;
  }
  throw new Error('expected the request to fail');
}

export interface CollectedWatch {
  events: Array<{ type: string; object: { metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; code?: number; reason?: string } }>;
  /** Resolves with the error (or null) when the stream ends. */
  done: Promise<unknown>;
  abort(): void;
}

export async function collectWatch(kc: KubeConfig, path: string, query: Record<string, string | number | boolean | undefined>): Promise<CollectedWatch> {
  const events: CollectedWatch['events'] = [];
  let finish: (err: unknown) => void = () => undefined;
  const done = new Promise<unknown>((r) => (finish = r));
  const controller = await new Watch(kc).watch(path, query, (type, object) => events.push({ type, object }), (err) => finish(err));
  return { events, done, abort: () => controller.abort() };
}
