/**
 * The shape of `kubelet-ts explain`'s answer: a pod's life told from the journal alone, as short
 * lines in journal order, each citing the records it was read from so `replay` and the visualizer
 * can jump there. Each cause family reads the pod's history on its own; the story is their lines
 * merged by time.
 */
import type { JournalRecord } from '../journal/record.js';

/** What a line is about; the families are read independently of one another. */
export type CauseFamily =
  | 'admission' | 'volumes' | 'images' | 'sandbox' | 'containers'
  | 'probes' | 'restarts' | 'kills' | 'resize' | 'status';

export interface StoryLine {
  /** Logical milliseconds since the run started (the first cited record's `t`). */
  t: number;
  family: CauseFamily;
  text: string;
  /** The journal records (their `seq`) the line was read from; never empty. */
  cites: readonly number[];
  /**
   * The same line came again right after (a failure retried with back-off): how many times in all,
   * and the time of the last. Set by the story's merge, never by a family.
   */
  repeated?: { times: number; lastT: number };
}

export interface PodIdentity {
  uid: string;
  namespace: string;
  name: string;
}

/** Every record concerning one pod, in journal order, with written-by-reference payloads resolved. */
export interface PodHistory {
  pod: PodIdentity;
  records: readonly JournalRecord[];
  /** The records telling the node's labels and taints as admission saw them (node-view.ts), for the admission family. */
  node?: readonly JournalRecord[];
}

/** One cause family's reading of a pod's history. */
export type FamilyExplainer = (history: PodHistory) => StoryLine[];

export interface Story {
  pod: PodIdentity;
  lines: StoryLine[];
  /**
   * The log's first record, when earlier ones are gone (rotated segments removed: the log starts at
   * a checkpoint); the pod's life before it is not told.
   */
  historyFrom?: number;
}

/** A pod the log does not know, with the names it does know that are closest to the one asked for. */
export interface PodNotFound {
  notFound: string;
  closest: string[];
  /** The name is that of pods in several namespaces: `closest` lists them all. */
  ambiguous?: boolean;
}
