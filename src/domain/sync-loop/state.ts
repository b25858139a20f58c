/**
 * What the syncLoop keeps between events, as its decisions (the other files of this folder) read
 * and return it. The machine holds it in its context beside its input.
 */
import type { PressureCondition } from '../eviction/signals.js';
import type { AdmissionNode } from '../pod/admission-node.js';
import type { Pod, PodStatus } from '../pod/types.js';
import type { Assignments } from '../resource-managers/assignments.js';
import type { CpuPinningCounts } from '../resource-managers/cpu-pinning.js';
import type { KeptPendingResize } from './pod-resize.js';
import type { ResourceInventory } from '../resource-managers/inventory.js';

export type PodLifecycle = 'active' | 'terminating' | 'terminated' | 'rejected';

/** The managers that kill pods with a status of their own: each hears when its kill is done. */
export type KillRequester = 'evictionManager' | 'nodeShutdown';

export interface PodEntry {
  pod: Pod;
  /** active: a worker drives it; rejected: admission refused it; terminated: its worker is done. */
  lifecycle: PodLifecycle;
  /** Removed from its source: forget it once terminated. */
  removed: boolean;
  status: PodStatus | null;
  /** Container start time (ms) per container name that probe workers were started for. */
  probedStarts: Record<string, number>;
  /** The volume manager was told to tear this pod's volumes down (it reached Succeeded or Failed). */
  volumesReleased?: boolean;
  /** Who asked for this pod's kill as an eviction (the eviction or the node shutdown manager): it is told when the worker is done. */
  evicting?: KillRequester;
  /** A resize its spec asks that could not be allocated yet (its PodResizePending condition). */
  resizePending?: KeptPendingResize;
}

/** A pod node affinity alone refused, waiting for the Node to be read again; `asked`: a read was requested since it came. */
export interface AwaitingNodeEntry { pod: Pod; source: string; asked: boolean }

/** A runtime-only pod being killed; `deferred` is a source's pod with the same uid, added once it is gone. */
export interface OrphanEntry { deferred: { pod: Pod; source: string } | null }

export interface SyncLoopState {
  pods: Record<string, PodEntry>;
  /** Orphans with a runtime-only worker, by uid. */
  orphans: Record<string, OrphanEntry>;
  /** The pods the runtime runs, as the PLEG last reported them (sorted uids). */
  runtimePodUids: string[];
  sourcesReady: boolean;
  /** The runtime's last announced health: while it is not ready, PLEG-driven syncs are skipped. */
  runtime: { healthy: boolean; reason: string };
  /** The node's pressure conditions as the eviction manager last reported them (its admit handler). */
  pressure: PressureCondition[];
  /** The node shutdown manager saw a shutdown coming: new pods are refused (its admit handler). */
  shuttingDown?: boolean;
  /** The node admission checks against: the input's, with the API server's labels and taints once seen. */
  node: AdmissionNode;
  /** Pods waiting for the Node to be read again, by uid. */
  awaitingNode: Record<string, AwaitingNodeEntry>;
  /** A read of the Node was requested and is not answered yet. */
  nodeRefreshing: boolean;
  /** What the resource managers assigned to the admitted pods (exclusive CPUs, devices, NUMA memory), by uid. */
  resources: Assignments;
  /** What admission allocates from (the resource managers' devices, CPUs, memory, topology settings). */
  inventory: ResourceInventory;
  /** The static CPU manager's allocations and failures since start (its metrics); absent: none. */
  cpuPinning?: CpuPinningCounts;
}

/** The parts of the syncLoop's input its decisions read. */
export interface SyncLoopSettings {
  hostIP: string;
  deadContainersKept: number;
  allowedUnsafeSysctls?: string[];
  /** Cluster mode: the node follows the API server's Node, which `nodeStatus` can be asked to read again. */
  liveNode?: boolean;
}

export const isRunningLifecycle = (lifecycle: PodLifecycle | undefined): boolean => lifecycle === 'active' || lifecycle === 'terminating';
