/**
 * Where a volume's API content comes from: the kubelet's ConfigMap and Secret managers and its
 * token manager (Go's configmap.Manager, secret.Manager and token.Manager). The volume plugins
 * and the env lookup read through this port; the adapters keep the caches and watches behind it.
 */
import type { Pod } from '../domain/pod/types.js';
import type { KeyedData } from '../domain/volumes/sources.js';

/** The pod a manager serves: objects are watched while a registered pod refers to them. */
export interface PodRef { namespace: string; name: string; uid: string }

export interface TokenRequestSpec {
  namespace: string;
  serviceAccountName: string;
  /** Empty: the API server's own audience. */
  audience: string;
  expirationSeconds: number;
  /** The token is bound to this pod (boundObjectRef). */
  pod: PodRef;
}

export interface ServiceAccountToken {
  token: string;
  /** From the TokenRequest status. */
  expirationTimestampMs: number;
  /** When the manager will hand out a new one instead (80 % of its lifetime, or 24 h, whichever first). */
  refreshAtMs: number;
}

export interface VolumeSources {
  /** undefined: the object does not exist (a 404). Rejects on any other failure. */
  configMap(namespace: string, name: string): Promise<KeyedData | undefined>;
  secret(namespace: string, name: string): Promise<KeyedData | undefined>;
  serviceAccountToken(spec: TokenRequestSpec): Promise<ServiceAccountToken>;
  /** The pod now uses the objects it refers to (Go's RegisterPod): their watches start. */
  registerPod(pod: Pod): void;
  /** The pod is gone (Go's UnregisterPod): watches only it needed stop, its tokens are dropped. */
  unregisterPod(podUid: string): void;
}
