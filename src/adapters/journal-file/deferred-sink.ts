/**
 * A sink that exists from the first instant of the process: it keeps records in memory until the
 * real sink is attached (the event log's place is known only after the configuration is loaded),
 * then hands them over in order; or drops them when the journal is turned off.
 */
import type { JournalRecord } from '../../domain/journal/record.js';
import type { JournalSink } from '../../ports/journal.js';

export class DeferredJournalSink {
  private early: JournalRecord[] | null = [];
  private target: JournalSink | null = null;
  private count = 0;
  /** Live readers of every record (the visualizer's feed); they must only enqueue. */
  private readonly subscribers = new Set<(record: JournalRecord) => void>();

  get records(): number {
    return this.count;
  }

  readonly append = (record: JournalRecord): void => {
    this.count += 1;
    for (const s of this.subscribers) s(record);
    if (this.target) this.target.append(record);
    else this.early?.push(record);
  };

  /** Every record from now on, whether or not the journal is written; returns the unsubscribe. */
  subscribe(listener: (record: JournalRecord) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  attach(sink: JournalSink): void {
    this.target = sink;
    for (const r of this.early ?? []) sink.append(r);
    this.early = null;
  }

  /** The journal is off: forget what was kept and keep nothing more. */
  disable(): void {
    this.early = null;
  }

  async flush(): Promise<void> {
    await this.target?.flush();
  }
}
