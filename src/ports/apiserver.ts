/**
 * The API server, as the kubelet uses it: one narrow interface per responsibility (Go's clientset
 * split into the calls the node side and the pod side make). Implemented over
 * @kubernetes/client-node in src/adapters/apiserver/; tests use fakes. Every method rejects with a
 * KubeletError whose code comes from the adapter's one status table (KLT_ERR_API_*);
 * `retryable` is true for outages, timeouts, 429 and 5xx.
 */
import type { ResourceClaim } from '../domain/dra/resource-claim.js';
import type { CsiObjectApi } from './csi-objects.js';
import type { KubeObject, LeaseObject, NodeObject, NodeStatus } from '../domain/node-status/api-objects.js';
import type { CsiNodeApi } from './csi-node-api.js';

export type { KubeObject, LeaseObject, NodeObject, NodeStatus };

/**
 * A strategic merge patch of a Node's labels and annotations; an annotation set to null is removed.
 * With `resourceVersion`, the server refuses it (409) when the Node changed since that version.
 */
export interface NodeMetadataPatch {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string | null>; resourceVersion?: string };
}

/** Nodes: registration and status (node side). */
export interface NodeApi {
  getNode(name: string): Promise<NodeObject>;
  createNode(node: NodeObject): Promise<NodeObject>;
  /** Strategic merge patch of the Node (labels, annotations on re-registration). */
  patchNode(name: string, patch: NodeMetadataPatch): Promise<NodeObject>;
  /** Strategic merge patch of nodes/{name}/status: conditions and addresses merge by `type`. */
  patchNodeStatus(name: string, status: NodeStatus): Promise<NodeObject>;
}

/** Leases in kube-node-lease (node side). */
export interface LeaseApi {
  getLease(namespace: string, name: string): Promise<LeaseObject>;
  createLease(lease: LeaseObject): Promise<LeaseObject>;
  /** PUT with metadata.resourceVersion: KLT_ERR_API_CONFLICT when someone else wrote in between. */
  updateLease(lease: LeaseObject): Promise<LeaseObject>;
}

/** A list's items and the resourceVersion a watch resumes from. */
export interface KubeObjectList {
  resourceVersion: string;
  items: KubeObject[];
}

export type PodList = KubeObjectList;

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchHandle {
  /** Stop the watch; `onDone` is not called for a stop asked for. */
  stop(): void;
}

/** Pods bound to this node, their status, mirror pods (pod side). */
export interface PodApi {
  /** GET /api/v1/pods?fieldSelector=spec.nodeName=<node>. */
  listPods(opts: { nodeName: string; resourceVersion?: string }): Promise<PodList>;
  /**
   * WATCH from `resourceVersion` with bookmarks. `onDone` gets the error that ended the watch
   * (KLT_ERR_API_GONE for 410: relist), or null when the server closed it cleanly.
   */
  watchPods(opts: {
    nodeName: string;
    resourceVersion: string;
    onEvent: (type: WatchEventType, object: KubeObject) => void;
    onDone: (err: unknown) => void;
  }): Promise<WatchHandle>;
  /** Strategic merge patch of pods/{name}/status. */
  patchPodStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject>;
  getPod(namespace: string, name: string): Promise<KubeObject>;
  createPod(namespace: string, pod: KubeObject): Promise<KubeObject>;
  /** DELETE with grace period and an optional uid precondition (mirror pods, Go's deletePod). */
  deletePod(namespace: string, name: string, opts?: { gracePeriodSeconds?: number; uid?: string }): Promise<void>;
}

/** The kubelet's own Node, listed and watched (Go's node informer: field selector metadata.name). */
export interface OwnNodeApi {
  /** GET /api/v1/nodes?fieldSelector=metadata.name=<name>: zero or one item. */
  listOwnNode(name: string): Promise<KubeObjectList>;
  /** WATCH the same from `resourceVersion`, with bookmarks; `onDone` as watchPods'. */
  watchOwnNode(opts: {
    name: string;
    resourceVersion: string;
    onEvent: (type: WatchEventType, object: KubeObject) => void;
    onDone: (err: unknown) => void;
  }): Promise<WatchHandle>;
}

/**
 * Follows the Node named `nodeName` until stopped: `onNode` gets each version the list or the
 * watch brings (a deletion is not one); outages and expired resourceVersions are ridden out inside.
 */
export type FollowNode = (nodeName: string, onNode: (node: NodeObject) => void) => { stop(): void };

/** Services of every namespace, for the Service environment variables (Go's service informer). */
export interface ServiceApi {
  /** GET /api/v1/services. */
  listServices(): Promise<KubeObjectList>;
  /** WATCH /api/v1/services from `resourceVersion`, with bookmarks; `onDone` as watchPods'. */
  watchServices(opts: {
    resourceVersion: string;
    onEvent: (type: WatchEventType, object: KubeObject) => void;
    onDone: (err: unknown) => void;
  }): Promise<WatchHandle>;
}

/** RuntimeClasses (node.k8s.io/v1), cluster-scoped, for the runtime handler of a pod (Go's RuntimeClass manager). */
export interface RuntimeClassApi {
  /** GET /apis/node.k8s.io/v1/runtimeclasses. */
  listRuntimeClasses(): Promise<KubeObjectList>;
  /** WATCH /apis/node.k8s.io/v1/runtimeclasses from `resourceVersion`, with bookmarks; `onDone` as watchPods'. */
  watchRuntimeClasses(opts: {
    resourceVersion: string;
    onEvent: (type: WatchEventType, object: KubeObject) => void;
    onDone: (err: unknown) => void;
  }): Promise<WatchHandle>;
}

/** The API objects a volume's content comes from, by their plural resource name. */
export type VolumeObjectResource = 'configmaps' | 'secrets';

/**
 * A ConfigMap or a Secret as the API carries it: Secret `data` and ConfigMap `binaryData` are
 * base64, ConfigMap `data` is text; `stringData` is a Secret's write-only plain-text form (a
 * manifest may still carry it). `immutable: true`: the content can never change.
 */
export interface VolumeObject extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
  /** A Secret's type. */
  type?: string;
}

export interface VolumeObjectList {
  resourceVersion: string;
  items: VolumeObject[];
}

/** authentication.k8s.io/v1 TokenRequest spec, as the kubelet asks for a pod's bound token. */
export interface TokenRequestBody {
  /** Absent: the API server's own audiences. */
  audiences?: string[];
  expirationSeconds: number;
  boundObjectRef: { apiVersion: 'v1'; kind: 'Pod'; name: string; uid: string };
}

/** The TokenRequest as the server answered: its spec (expirationSeconds as granted) and the token. */
export interface TokenRequestAnswer {
  spec: Partial<TokenRequestBody>;
  status: { token: string; expirationTimestamp: string };
}

/** ConfigMaps, Secrets and service account tokens, for the volume managers (pod side). */
export interface VolumeApi {
  /** GET one object; undefined on 404. `resourceVersion: '0'` lets the API server answer from its cache. */
  getObject(resource: VolumeObjectResource, namespace: string, name: string, opts?: { resourceVersion?: string }): Promise<VolumeObject | undefined>;
  /** LIST with fieldSelector metadata.name=<name> in the namespace: zero or one item, and the list's resourceVersion. */
  listObject(resource: VolumeObjectResource, namespace: string, name: string): Promise<VolumeObjectList>;
  /**
   * WATCH the one object (the same field selector) from `resourceVersion`, with bookmarks. `onDone`
   * gets the error that ended the watch (KLT_ERR_API_GONE for 410), or null when the server closed it.
   */
  watchObject(resource: VolumeObjectResource, opts: {
    namespace: string;
    name: string;
    resourceVersion: string;
    onEvent: (type: WatchEventType, object: VolumeObject) => void;
    onDone: (err: unknown) => void;
  }): Promise<WatchHandle>;
  /** POST serviceaccounts/{name}/token. The answer holds a credential: never log it. */
  createServiceAccountToken(namespace: string, serviceAccountName: string, spec: TokenRequestBody): Promise<TokenRequestAnswer>;
}

/**
 * PersistentVolumeClaims and PersistentVolumes, for the volume plugins (Go's populator reads them
 * with the main client; the Node authorizer lets a node read only those of pods bound to it).
 * Each answers undefined on 404.
 */
export interface ClaimApi {
  getPersistentVolumeClaim(namespace: string, name: string): Promise<KubeObject | undefined>;
  getPersistentVolume(name: string): Promise<KubeObject | undefined>;
  /** The node's labels, for a PV's node affinity (Go's GetNodeLabels). */
  getNode(name: string): Promise<NodeObject>;
}

/** DRA ResourceClaims (resource.k8s.io/v1), for the DRA claim manager; the Node authorizer lets a node read those of pods bound to it. */
export interface ResourceClaimApi {
  /** Rejects on 404 as on any failure. The answer's fields the kubelet reads, as getNode's are. */
  getResourceClaim(namespace: string, name: string): Promise<ResourceClaim>;
  /** DeleteCollection of the ResourceSlices `fieldSelector` selects (the node's, at start). */
  deleteResourceSlices(fieldSelector: string): Promise<void>;
}

/** Events (the event client, its own rate limit). */
export interface EventApi {
  createEvent(namespace: string, event: KubeObject): Promise<KubeObject>;
  /** Strategic merge patch of an event (the recorder's aggregation: count, lastTimestamp, series). */
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<KubeObject>;
}

/** The heartbeat client: no client-side rate limit, a short per-request timeout, re-openable. */
/** The API server's answers the kubelet server delegates to (Webhook authn and authz). */
export interface ReviewApi {
  /** TokenReview: who is this bearer token? */
  reviewToken(token: string): Promise<{ authenticated: boolean; user?: { username: string; uid?: string; groups?: string[] }; error?: string }>;
  /** SubjectAccessReview: may this user do this on nodes/<subresource>? */
  reviewAccess(spec: {
    user: string;
    uid?: string;
    groups: string[];
    resourceAttributes: { verb: string; group: string; version: string; resource: string; subresource: string; name: string; namespace: string };
  }): Promise<{ allowed: boolean; reason?: string }>;
}

export interface HeartbeatApi extends NodeApi, LeaseApi {
  /**
   * Drop every open connection; the next request opens a new one (Go: closeAllConns, called on
   * repeated heartbeat failures so a half-dead TCP connection is not reused).
   */
  reopen(): void;
}

/** Go's three clients (run.clients): kubeClient, eventClient, heartbeatClient. */
export interface ApiClients {
  main: NodeApi & LeaseApi & PodApi & ReviewApi & VolumeApi & ClaimApi & ResourceClaimApi & ServiceApi & OwnNodeApi & RuntimeClassApi & CsiNodeApi & CsiObjectApi;
  events: EventApi;
  heartbeat: HeartbeatApi;
  /** The API server's URL from the kubeconfig (for logs). */
  readonly server: string;
  /**
   * Reads the kubeconfig again for all three clients and closes their old connections, so nothing
   * keeps using a replaced client certificate (Go's closeAllConns after a rotation). Throws, keeping
   * the current clients, when the kubeconfig cannot be read.
   */
  reload(): void;
  close(): void;
}
