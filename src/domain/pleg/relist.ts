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
  /** Every pod the runtime knows; absent when `unchanged`. */
  pods?: RelistPod[];
  /** Identifies `pods` (relistDigest); the machine hands it back on the next relist. */
  digest?: string;
  /**
   * The runtime answered exactly what it answered last time (same digest): the pods are not
   * repeated. Most relists of a quiet node are this, which keeps the journal small.
   */
  unchanged?: true;
}

/** What the relist actor is given: the digest of the pods the machine holds. */
export interface RelistInput {
  previousDigest: string | null;
}

/**
 * A stable digest of a relist's pods: two 32-bit FNV-1a hashes (different offset bases) over their
 * canonical JSON, sorted by uid. 32-bit integer arithmetic, once a second over every pod: a 64-bit
 * BigInt FNV was a measurable share of an idle node's CPU at 110 pods.
 */
export function relistDigest(pods: readonly RelistPod[]): string {
  const text = JSON.stringify(
    [...pods]
      .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0))
      .map((p) => [p.uid, p.sandboxes.map((s) => [s.id, s.state]), p.containers.map((c) => [c.id, c.name, c.state])]),
  );
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
