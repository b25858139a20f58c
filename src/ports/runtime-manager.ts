/**
 * The runtime manager pod workers call (Go's kubeGenericRuntimeManager, implemented by
 * src/actors/runtime-manager over the CRI port). Every result is plain JSON (no class instances,
 * errors as SerializedError), so a result can travel in an XState event and be written to the journal.
 */
import type { SerializedError } from '../domain/errors.js';
import type { PodActions, ProbeFailures } from '../domain/runtime/compute-pod-actions.js';
import type { RuntimePodStatus } from '../domain/runtime/pod-status.js';
import type { Pod } from '../domain/pod/types.js';
import type { ImageFsInfoResponse } from './cri.js';
import type { PodAssignment } from '../domain/resource-managers/assignments.js';

/** Go's SyncAction, by step of SyncPod / KillPod. */
export type SyncStep =
  | 'canRunPod'
  | 'computePodActions'
  | 'killPod'
  | 'killContainer'
  | 'killPodSandbox'
  | 'createPodSandbox'
  | 'configPodSandbox'
  | 'startInitContainer'
  | 'startContainer'
  | 'resizePodInPlace'
  | 'updatePodCgroup'
  | 'updateContainerResources'
  | 'removeContainer'
  | 'removePodSandbox'
  /** The pod's DRA claims unprepared after its kill. */
  | 'unprepareResources';

export interface SyncStepResult {
  step: SyncStep;
  /** The container name, the pod ("namespace/name") or the sandbox id the step acted on. */
  target: string;
  ok: boolean;
  error?: SerializedError;
  /** The Go kubelet's reason for the failure, as container statuses show it (ErrImagePull, CrashLoopBackOff…). */
  reason?: string;
  /** The container or sandbox id the step produced or acted on, when there is one. */
  id?: string;
  /** The credential an image was pulled with: its source (`secret ns/name`, `plugin name`), never its values. */
  pulledWith?: string;
  /** An image pull that failed (see SyncStepOutcome.pullFailure). */
  pullFailure?: { image: string; atMs: number };
  /** The resource an in-place resize step changed (updatePodCgroup, updateContainerResources). */
  resource?: 'cpu' | 'memory';
  durationMs: number;
}

/**
 * What became of the in-place resize a sync applied (Go's ResizePodInPlace result): every step
 * done, or the first failure's message (Go's ErrResizePodInPlace), for PodResizeInProgress /
 * ResizeError. Partially applied steps stay recorded in the actuated state.
 */
export type ResizeOutcome = { status: 'applied' } | { status: 'failed'; message: string };

export interface SyncPodResult {
  podUid: string;
  /** True when every step succeeded. */
  ok: boolean;
  actions: PodActions;
  /** The sandbox the pod's containers run in after this sync, if any. */
  sandboxId?: string;
  steps: SyncStepResult[];
  /** The pod's status after the sync (see PodSyncOutcome.podStatus). */
  podStatus?: { runtimeStatus: RuntimePodStatus; observedAtMs: number };
  /** The pod cannot run on this node as asked (see PodSyncOutcome.blocked). */
  blocked?: { reason: string; message: string };
  /** The sync resized containers in place (or tried to); absent when it had nothing to resize. */
  resize?: ResizeOutcome;
  /**
   * After the sync a running container still runs with other cpu or memory amounts than the pod
   * (the allocated pod) gives it (isPodResizeInProgress over the status handed back); absent when
   * not, or when no status could be read.
   */
  resizeInProgress?: true;
}

export interface KillPodResult {
  podUid: string;
  ok: boolean;
  steps: SyncStepResult[];
}

export interface SyncPodOptions {
  /** Failed liveness/startup probes by container name (from the probe manager). */
  probes?: ProbeFailures;
  /** A view of the pod read just before (by PLEG, say); read from the runtime when absent. */
  podStatus?: RuntimePodStatus;
  /** What the resource managers gave its containers at admission (into their CRI configs). */
  assignment?: PodAssignment;
  /**
   * When the pull back-off of each image of the pod that failed to pull ends (the pod worker keeps
   * it: image-pull-backoff.ts); an image is not pulled before (ImagePullBackOff). Absent: none.
   */
  imagePullBackOffEnds?: Readonly<Record<string, number>>;
}

export interface ExecSyncResult { stdout: string; stderr: string; exitCode: number }

export interface RuntimeManager {
  syncPod(pod: Pod, opts?: SyncPodOptions): Promise<SyncPodResult>;
  /** Stop the pod's running containers (in parallel, with the grace period), then its sandboxes. */
  killPod(pod: Pod, gracePeriodSeconds?: number): Promise<KillPodResult>;
  /** Remove the pod's containers, then its sandboxes. */
  removePod(uid: string): Promise<KillPodResult>;
  getPodStatus(uid: string): Promise<RuntimePodStatus>;
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResult>;
  imageFsInfo(): Promise<ImageFsInfoResponse>;
}
