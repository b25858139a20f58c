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
 * fields, pods sorted by uid, each field ended by a separator no id, name or state contains. Computed
 * once a second over every pod, so it hashes the fields where they are instead of building their JSON
 * first: a BigInt hash over a JSON string makes a measurable share of an idle node's CPU and garbage
 * (docs/FINDINGS.md).
 */
export function relistDigest(pods: readonly RelistPod[]): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  const feed = (text: string, end: number) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193);
    }
    a = Math.imul(a ^ end, 0x01000193);
    b = Math.imul(b ^ end, 0x01000193);
  };
  const sorted = [...pods].sort((x, y) => (x.uid < y.uid ? -1 : x.uid > y.uid ? 1 : 0));
  for (const p of sorted) {
    feed(p.uid, POD_END);
    for (const s of p.sandboxes) {
      feed(s.id, FIELD_END);
      feed(s.state, SANDBOX_END);
    }
    for (const c of p.containers) {
      feed(c.id, FIELD_END);
      feed(c.name, FIELD_END);
      feed(c.state, CONTAINER_END);
    }
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

// Control characters: never in a uid, a runtime id, a container name (DNS label) or a state.
const FIELD_END = 0x1f;
const SANDBOX_END = 0x1e;
const CONTAINER_END = 0x1d;
const POD_END = 0x1c;
