import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeferredJournalSink } from '../../../src/adapters/journal-file/deferred-sink.js';
import { FileJournalSink } from '../../../src/adapters/journal-file/file-sink.js';
import { readJournal } from '../../../src/adapters/journal-file/reader.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../../../src/domain/journal/record.js';

const header = { format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 't', startTime: '1970-01-01T00:00:00.000Z', nodeName: 'n', configSha256: null, machinesSha256: 'm', segment: 1 } as const;
const rec = (seq: number): JournalRecord => ({ seq, t: seq, wall: '1970-01-01T00:00:00.000Z', actor: 'supervisor', kind: 'derived', type: 'state', name: 'supervisor', source: null, payload: { value: `s${seq}`, pad: 'x'.repeat(50) } });

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kts-sink-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileJournalSink', () => {
  it('creates the journal and its rotated segments readable by the owner only (0600), even over a 0644 file (#14)', async () => {
    const path = join(dir, 'j.jsonl');
    writeFileSync(path, 'old\n', { mode: 0o644 });
    const sink = new FileJournalSink({ path, maxSegmentBytes: 4096, maxSegments: 3 });
    sink.open(header);
    for (let i = 1; i <= 100; i++) sink.append(rec(i));
    await sink.close();
    const files = readdirSync(dir).sort();
    expect(files.length).toBe(3);
    expect(files.map((f) => (statSync(join(dir, f)).mode & 0o777).toString(8))).toEqual(['600', '600', '600']);
  });

  it('writes the header then every record in order, once flushed', async () => {
    const sink = new FileJournalSink({ path: join(dir, 'j.jsonl') });
    sink.open(header);
    for (let i = 1; i <= 1000; i++) sink.append(rec(i));
    await sink.close();
    const read = readJournal(join(dir, 'j.jsonl'));
    expect(read.header).toEqual(header);
    expect(read.records.map((r) => r.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(read.skipped).toEqual([]);
  });

  it('gathers records for its batch window before writing them, and writes them at once on a flush', async () => {
    // The window is the sink's timer: faked, a minute passes without a real wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const path = join(dir, 'j.jsonl');
      const lines = () => readFileSync(path, 'utf8').trim().split('\n').length;
      const held = new FileJournalSink({ path, batchMs: 60_000 });
      // Appended beside it with no window: once its records land, any write the held sink had
      // started with them would have landed too.
      const beside = new FileJournalSink({ path: join(dir, 'beside.jsonl'), batchMs: 0 });
      held.open(header);
      beside.open(header);
      for (let i = 1; i <= 10; i++) {
        held.append(rec(i));
        beside.append(rec(i));
      }
      await vi.advanceTimersByTimeAsync(59_999);
      await beside.close();
      expect(readJournal(join(dir, 'beside.jsonl')).records).toHaveLength(10);
      expect(lines()).toBe(1);
      await held.flush();
      expect(lines()).toBe(11);
      await held.close();

      const timed = new FileJournalSink({ path: join(dir, 'k.jsonl'), batchMs: 60_000 });
      timed.open(header);
      timed.append(rec(1));
      await vi.advanceTimersByTimeAsync(60_000);
      // The window ends by itself, without a flush: the write it started lands (waitFor's checks
      // move the faked clock too, which changes nothing here).
      await vi.waitFor(() => expect(readJournal(join(dir, 'k.jsonl')).records.map((r) => r.seq)).toEqual([1]), { timeout: 5_000, interval: 20 });
      await timed.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('rotates by size, keeps at most maxSegments files, and each segment starts with the header', async () => {
    const path = join(dir, 'j.jsonl');
    const sink = new FileJournalSink({ path, maxSegmentBytes: 4096, maxSegments: 3 });
    sink.open(header);
    for (let i = 1; i <= 300; i++) sink.append(rec(i));
    await sink.close();
    const files = readdirSync(dir).sort();
    expect(files.length).toBe(3);
    for (const f of files) {
      const first = JSON.parse(readFileSync(join(dir, f), 'utf8').split('\n')[0]!);
      expect(first.format).toBe(JOURNAL_FORMAT);
      expect(readFileSync(join(dir, f)).length).toBeLessThanOrEqual(4096 + 200);
    }
    const read = readJournal(path);
    const seqs = read.records.map((r) => r.seq);
    expect(seqs.at(-1)).toBe(300);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    expect(seqs[0]).toBeGreaterThan(1);
  });

  it('holds a checkpoint in every segment after the first, however many rotations one batch of writes makes', async () => {
    const path = join(dir, 'j.jsonl');
    let seq = 0;
    let lastWasCheckpoint = false;
    const append = (r: JournalRecord) => {
      lastWasCheckpoint = r.type === 'checkpoint';
      sink.append(r);
    };
    // As the daemon's tap: no second checkpoint while nothing was journaled since the last one.
    const big = (): JournalRecord => ({ ...rec(0), seq: ++seq, type: 'checkpoint', name: 'checkpoint', payload: { pad: 'c'.repeat(5000) } });
    const sink: FileJournalSink = new FileJournalSink({ path, maxSegmentBytes: 4096, maxSegments: 100, onRotate: () => {
      if (!lastWasCheckpoint) append(big());
    } });
    sink.open(header);
    // Batches of several segments each: a batch's lines are all queued before the sink writes any.
    for (let batch = 0; batch < 10; batch++) {
      for (let i = 1; i <= 100; i++) append(rec(++seq));
      await sink.flush();
    }
    await sink.close();
    const segments = readdirSync(dir).filter((f) => f !== 'j.jsonl').sort((a, b) => Number(a.split('.').at(-1)) - Number(b.split('.').at(-1)));
    expect(segments.length).toBeGreaterThan(4);
    for (const f of [...segments.slice(1), 'j.jsonl']) {
      const types = readFileSync(join(dir, f), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l).type);
      expect(types, f).toContain('checkpoint');
    }
    const seqs = readJournal(path).records.map((r) => r.seq);
    expect(seqs.at(-1)).toBe(seq);
  });

  describe('a pod source\'s snapshots', () => {
    // Ten pods; each snapshot changes one (a new object) and re-sends the other nine as they were.
    function snapshots(count: number): JournalRecord[] {
      let pods = Array.from({ length: 10 }, (_, i) => ({ metadata: { name: `p${i}`, resourceVersion: '0' }, spec: { containers: [{ name: 'c' }], pad: 'x'.repeat(200) } }));
      return Array.from({ length: count }, (_, n) => {
        pods = pods.map((p, i) => (i === n % 10 ? { ...p, metadata: { ...p.metadata, resourceVersion: String(n + 1) } } : p));
        return { seq: 0, t: n, wall: 'w', actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', source: 'podConfig/apiSource', payload: { source: 'api', pods, rejected: [], observedAtMs: n } };
      });
    }
    const checkpoint = (): JournalRecord => ({ seq: 0, t: 0, wall: 'w', actor: 'supervisor', kind: 'derived', type: 'checkpoint', name: 'checkpoint', source: null, payload: {} });
    /**
     * Appends with seqs in order, each written before the next (so each rotation's checkpoint, which
     * the daemon writes on rotating, follows it at once); answers the path and the records by seq.
     */
    async function write(records: JournalRecord[], maxSegments: number): Promise<{ path: string; bySeq: Map<number, JournalRecord> }> {
      const path = join(dir, 'j.jsonl');
      const bySeq = new Map<number, JournalRecord>();
      let seq = 0;
      const sink: FileJournalSink = new FileJournalSink({ path, maxSegmentBytes: 8 * 1024, maxSegments, onRotate: () => sink.append({ ...checkpoint(), seq: ++seq }) });
      sink.open(header);
      for (const r of records) {
        const numbered = { ...r, seq: ++seq };
        bySeq.set(seq, numbered);
        sink.append(numbered);
        await sink.flush();
      }
      await sink.close();
      return { path, bySeq };
    }

    it('writes the pods sent again as references and reads every snapshot back whole, across rotations', async () => {
      const { path, bySeq } = await write(snapshots(40), 100);
      expect(readdirSync(dir).length).toBeGreaterThan(2);
      const text = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('');
      expect(text.match(/"\$pod":/g)?.length).toBeGreaterThan(40 * 6); // nine of ten pods in each, but the first and each after a checkpoint
      expect(text).not.toContain('"$prev"');
      const read = readJournal(path);
      expect(read.skipped).toEqual([]);
      expect(read.records.filter((r) => r.type !== 'checkpoint')).toEqual([...bySeq.values()]);
    });

    it('reads every snapshot after the first checkpoint whole when older segments are gone, skipping what refers to them', async () => {
      const { path, bySeq } = await write(snapshots(80), 2);
      const read = readJournal(path);
      const firstCheckpoint = read.records.find((r) => r.type === 'checkpoint')!;
      const snapshotsRead = read.records.filter((r) => r.type !== 'checkpoint');
      for (const r of snapshotsRead) expect(r).toEqual(bySeq.get(r.seq));
      // Everything after the first checkpoint is there; what was skipped came before it.
      const lastSeq = Math.max(...bySeq.keys());
      expect(snapshotsRead.filter((r) => r.seq > firstCheckpoint.seq).map((r) => r.seq)).toEqual([...bySeq.keys()].filter((q) => q > firstCheckpoint.seq && q <= lastSeq));
      expect(read.skipped.length).toBeGreaterThan(0);
      for (const s of read.skipped) expect(s.reason).toMatch(/a record that cannot be read whole/);
    });
  });

  it('reports a write failure once and drops records instead of throwing into actors', async () => {
    const errors: unknown[] = [];
    writeFileSync(join(dir, 'blocker'), '');
    const sink = new FileJournalSink({ path: join(dir, 'blocker', 'j.jsonl'), onError: (e) => errors.push(e) });
    expect(() => sink.open(header)).toThrow();
    sink.append(rec(1));
    await sink.flush();
    expect(errors.length).toBeLessThanOrEqual(1);
  });
});

describe('readJournal', () => {
  it('reports a torn last line and reads every whole record before it', () => {
    const path = join(dir, 'torn.jsonl');
    writeFileSync(path, [JSON.stringify(header), JSON.stringify(rec(1)), JSON.stringify(rec(2)).slice(0, 30)].join('\n'));
    const read = readJournal(path);
    expect(read.records.map((r) => r.seq)).toEqual([1]);
    expect(read.skipped).toEqual([{ file: path, line: 3, reason: 'torn last line' }]);
  });

  it('refuses a file without a header, naming it', () => {
    const path = join(dir, 'x.jsonl');
    writeFileSync(path, '{"seq":1}\n');
    expect(() => readJournal(path)).toThrow(/not a kubelet-ts event log/);
  });
});

describe('DeferredJournalSink', () => {
  it('keeps records until a sink is attached, then hands them over in order', async () => {
    const deferred = new DeferredJournalSink();
    deferred.append(rec(1));
    deferred.append(rec(2));
    const sink = new FileJournalSink({ path: join(dir, 'd.jsonl') });
    sink.open(header);
    deferred.attach(sink);
    deferred.append(rec(3));
    await sink.close();
    expect(readJournal(join(dir, 'd.jsonl')).records.map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('drops what it kept when the journal is turned off', async () => {
    const deferred = new DeferredJournalSink();
    deferred.append(rec(1));
    deferred.disable();
    const sink = new FileJournalSink({ path: join(dir, 'off.jsonl') });
    sink.open(header);
    deferred.attach(sink);
    deferred.append(rec(2));
    await sink.close();
    expect(readJournal(join(dir, 'off.jsonl')).records.map((r) => r.seq)).toEqual([2]);
  });
});

describe('readJournal', () => {
  it('refuses a FIFO by name instead of blocking on it for ever (#14)', () => {
    const fifo = join(dir, 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(() => readJournal(fifo)).toThrow(`event log ${fifo} is a FIFO, not a regular file`);
  });
});
