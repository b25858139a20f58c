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

/** A stable digest of a relist's pods (FNV-1a 64 over their canonical JSON, sorted by uid). */
export function relistDigest(pods: readonly RelistPod[]): string {
  const text = JSON.stringify(
    [...pods]
      .sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0))
      .map((p) => [p.uid, p.sandboxes.map((s) => [s.id, s.state]), p.containers.map((c) => [c.id, c.name, c.state])]),
  );
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}
