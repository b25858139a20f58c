import { describe, expect, it } from 'vitest';
import { JournalFeed } from '../../src/adapters/debug-server/journal-feed.js';
import { DeferredJournalSink } from '../../src/adapters/journal-file/deferred-sink.js';
import type { JournalRecord } from '../../src/domain/journal/record.js';

const rec = (seq: number, actor = 'supervisor'): JournalRecord => ({ seq, t: seq, wall: '', actor, kind: 'derived', type: 'state', name: actor, source: null, payload: { value: 'x' } });

describe('DeferredJournalSink.subscribe (the visualizer feed)', () => {
  it('hands every record to subscribers before and after the file sink is attached, and with the journal off', () => {
    const sink = new DeferredJournalSink();
    const feed = new JournalFeed();
    const stop = sink.subscribe(feed.append);
    sink.append(rec(1));
    const written: number[] = [];
    sink.attach({ open: () => undefined, append: (r) => written.push(r.seq), flush: async () => undefined, close: async () => undefined });
    sink.append(rec(2, 'pod:a'));
    stop();
    sink.append(rec(3));
    expect(feed.history().map((r) => r.seq)).toEqual([1, 2]);
    expect(written).toEqual([1, 2, 3]);

    const off = new DeferredJournalSink();
    const seen: number[] = [];
    off.subscribe((r) => seen.push(r.seq));
    off.disable();
    off.append(rec(7));
    expect(seen).toEqual([7]);
  });
});

describe('JournalFeed.clear (no debug server)', () => {
  it('forgets the start-up records and the ring, and a later record starts a new history', () => {
    const feed = new JournalFeed({ maxRecent: 3 });
    for (let seq = 1; seq <= 5; seq++) feed.append(rec(seq, seq % 2 ? 'supervisor' : 'pod:a'));
    expect(feed.history().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    feed.clear();
    expect(feed.history()).toEqual([]);
    feed.append(rec(6, 'pod:a'));
    expect(feed.history().map((r) => r.seq)).toEqual([6]);
  });
});
