/**
 * What one PLEG relist sees (Go's GetPods(all) as GenericPLEG's podRecords hold it): every pod the
 * runtime knows, by the io.kubernetes.pod.uid label, with its sandboxes and containers and their
 * states. Plain JSON: it travels in the relist actor's output and the journal.
 */
import type { RuntimeContainerState } from '../runtime/pod-status.js';

export type RelistSandboxState = 'ready' | 'notReady';

export interface RelistSandbox { id: string; state: RelistSandboxState }
export interface RelistContainer { id: string; name: string; state: RuntimeContainerState }

export interface RelistPod {
  uid: string;
  sandboxes: RelistSandbox[];
  containers: RelistContainer[];
}

export interface RelistOutput {
  /** The clock when the relist started (Go stamps relistTime before listing). */
  observedAtMs: number;
  /** How long the two list calls took, when the actor measured it. */
  durationMs?: number;
  pods: RelistPod[];
}
