/**
 * What the pod source actors need from the outside world, implemented by
 * src/adapters/pod-sources (createPodSourceIo) and by fakes in tests. Readers return plain data;
 * the actors add timing (polls, watch debounce) and turn results into machine events.
 */
import type { Pod } from '../domain/pod/types.js';
import type { RejectedManifest } from '../domain/pod-config/types.js';

export type SourceRead =
  /** Every pod the source has now, and the manifests skipped (by file name or URL) with why. */
  | { kind: 'snapshot'; pods: Pod[]; rejected: RejectedManifest[] }
  /** Nothing could be read: the pods read before stay (Go keeps them too). */
  | { kind: 'failed'; origin: string; reason: string }
  /** The source is byte for byte what it was at the last snapshot (http only, as Go short-circuits). */
  | { kind: 'unchanged' };

export interface Closable {
  close(): void;
}

export interface FileSourceReader {
  read(): Promise<SourceRead>;
  /**
   * Calls `onEvent('changed')` when something under the path may have changed, `onEvent('lost')`
   * once if the watch ended by itself (the path went away): the caller may watch again later.
   * Throws when the path cannot be watched now.
   */
  watch(onEvent: (event: 'changed' | 'lost') => void): Closable;
}

export interface HttpSourceReader {
  read(): Promise<SourceRead>;
}

export interface PodSourceIo {
  fileSource(opts: { path: string; nodeName: string }): FileSourceReader;
  httpSource(opts: { url: string; header: Record<string, string[]>; nodeName: string }): HttpSourceReader;
}
