/**
 * The journal records the visualizer can see: a bounded memory of the run, and live subscribers.
 *
 * - The supervisor's records (its states, `phase.waiting`, its phase errors) are kept from the
 *   first one, up to `maxStartup`: the start-up timeline is computed from them, and they are few.
 * - Every other record is kept in a ring of the last `maxRecent`, for a page that opens late.
 * - `append` is on the kubelet's hot path: it stores a reference and calls the listeners, which
 *   must only enqueue (see sse-stream.ts). A listener that throws is dropped, never the kubelet.
 */
import type { JournalRecord } from '../../domain/journal/record.js';

export type RecordListener = (record: JournalRecord) => void;

export interface JournalFeedSource {
  /** Records kept, in seq order: the supervisor's from the start, the rest the most recent. */
  history(): JournalRecord[];
  subscribe(listener: RecordListener): () => void;
}

export class JournalFeed implements JournalFeedSource {
  private readonly startup: JournalRecord[] = [];
  private readonly recent: (JournalRecord | undefined)[];
  private next = 0;
  private readonly listeners = new Set<RecordListener>();

  constructor(private readonly opts: { maxStartup?: number; maxRecent?: number; rootActor?: string } = {}) {
    this.recent = new Array(opts.maxRecent ?? 5000);
  }

  readonly append = (record: JournalRecord): void => {
    if (record.actor === (this.opts.rootActor ?? 'supervisor')) {
      if (this.startup.length < (this.opts.maxStartup ?? 10_000)) this.startup.push(record);
    } else if (this.recent.length > 0) {
      this.recent[this.next % this.recent.length] = record;
      this.next += 1;
    }
    for (const l of this.listeners) {
      try {
        l(record);
      } catch {
        this.listeners.delete(l);
      }
    }
  };

  history(): JournalRecord[] {
    const n = this.recent.length;
    const ring: JournalRecord[] = [];
    for (let i = Math.max(0, this.next - n); i < this.next; i++) ring.push(this.recent[i % n]!);
    return mergeBySeq(this.startup, ring);
  }

  /** Forgets every record kept: nobody will read the history (the debug server is off). */
  clear(): void {
    this.startup.length = 0;
    this.recent.fill(undefined);
    this.next = 0;
  }

  /** How many live readers there are (pages with the stream open). */
  get subscribers(): number {
    return this.listeners.size;
  }

  subscribe(listener: RecordListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** `source` with each record passed through `map` on its way out, kept or live. */
export function mappedFeed(source: JournalFeedSource, map: (record: JournalRecord) => JournalRecord): JournalFeedSource {
  return { history: () => source.history().map(map), subscribe: (listener) => source.subscribe((r) => listener(map(r))) };
}

/** A fixed list of records (a recorded log): the history is the whole log, nothing more arrives. */
export function staticFeed(records: readonly JournalRecord[]): JournalFeedSource {
  return { history: () => [...records], subscribe: () => () => undefined };
}

function mergeBySeq(a: JournalRecord[], b: JournalRecord[]): JournalRecord[] {
  const out: JournalRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.seq <= b[j]!.seq)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
