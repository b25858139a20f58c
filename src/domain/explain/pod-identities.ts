/**
 * The pods a journal knows, found by shape: every pod object in any record's payload (a source's
 * snapshot, a worker's spawn input, a checkpoint's persisted context) names its uid, namespace and
 * name. A mirror pod (the API server's copy of a static pod) is left out: the kubelet knows the
 * static pod by its own uid, the one its worker and volumes are named by.
 */
import { isPodObject } from '../journal/pod-forms.js';
import type { JournalRecord } from '../journal/record.js';
import type { PodIdentity } from './story.js';

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

export interface KnownPod extends PodIdentity {
  /** The last record that held the pod: of several uids under one name, the latest is the one asked for. */
  lastSeq: number;
}

interface PodMetadata {
  uid?: unknown;
  namespace?: unknown;
  name?: unknown;
  annotations?: Record<string, unknown>;
}

/** Every pod the records hold, by uid. */
export function knownPods(records: readonly JournalRecord[]): Map<string, KnownPod> {
  const identities = new PodIdentities();
  for (const record of records) identities.add(record);
  return identities.pods;
}

/** The pods records hold, learnt one record at a time: a journal read as a stream keeps only this table. */
export class PodIdentities {
  /** By uid. */
  readonly pods = new Map<string, KnownPod>();

  add(record: JournalRecord): void {
    this.visit(record.payload, record.seq);
  }

  /**
   * A pod is noted, never walked into, so one shared by many records (written by reference) costs
   * a note each: no cache of objects seen, whose weak table cost a long log more than it saved.
   */
  private visit(value: unknown, seq: number): void {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) this.visit(item, seq);
      return;
    }
    if (isPodObject(value)) {
      this.note(value, seq);
      return;
    }
    for (const k in value) if (Object.hasOwn(value, k)) this.visit((value as Record<string, unknown>)[k], seq);
  }

  private note(pod: object, seq: number): void {
    const meta = (pod as { metadata: PodMetadata }).metadata;
    if (typeof meta.uid !== 'string' || typeof meta.name !== 'string') return;
    if (meta.annotations && MIRROR_ANNOTATION in meta.annotations) return;
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : 'default';
    this.pods.set(meta.uid, { uid: meta.uid, namespace, name: meta.name, lastSeq: seq });
  }
}
