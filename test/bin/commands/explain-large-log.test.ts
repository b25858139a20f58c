/**
 * `explain` on a large log streams it: what it holds while telling the story is the one pod's
 * history, not the log. Measured where the story is told (a family added to the command's), after a
 * full collection: a command holding every record holds more than the log's size there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeLargeJournal, type LargeJournal } from '../../../bench/large-journal.js';
import { readJournal } from '../../../src/adapters/journal-file/reader.js';
import { runExplainCommand } from '../../../src/bin/commands/explain.js';
import { explainPod } from '../../../src/domain/explain/explain.js';
import { podHistory } from '../../../src/domain/explain/pod-history.js';
import { storyJson } from '../../../src/domain/explain/render-story.js';
import type { FamilyExplainer } from '../../../src/domain/explain/story.js';

// A full collection on demand (vitest's workers run without --expose-gc).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The log's size: large beside what explain keeps, small enough for a unit test (the bench reads 512 MiB). */
const LOG_BYTES = 20_000_000;
const SEGMENT_BYTES = 4 * 1024 * 1024;
/** Of the log's size, the most the command may hold when it tells the story: the log held whole takes more than its size. */
const HELD_SHARE = 0.1;

/** What the command held when its families read the history. */
const held = vi.hoisted(() => ({ heapBytes: NaN, records: NaN, nodeRecords: NaN }));

vi.mock('../../../src/domain/explain/families.js', async (importOriginal) => {
  const { FAMILIES } = await importOriginal<typeof import('../../../src/domain/explain/families.js')>();
  const measure: FamilyExplainer = (history) => {
    held.heapBytes = heapUsed();
    held.records = history.records.length;
    held.nodeRecords = history.node?.length ?? 0;
    return [];
  };
  return { FAMILIES: [...FAMILIES, measure] };
});

function heapUsed(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

let dir: string;
let log: LargeJournal;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kts-explain-large-'));
  log = await writeLargeJournal({ dir: join(dir, 'events'), bytes: LOG_BYTES, segmentBytes: SEGMENT_BYTES });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) } };
};

/** The story and the pod's history as read from the log held whole, the log let go after. */
function toldWhole(journal: LargeJournal): { story: string; historyRecords: number } {
  const { records } = readJournal(journal.path);
  return { story: storyJson(explainPod(records, 'default/target')), historyRecords: podHistory(records, journal.target).records.length };
}

describe('explain on a large log', () => {
  it('tells the story the whole log tells, holding the one pod\'s history only', async () => {
    const { story, historyRecords } = toldWhole(log);
    expect(historyRecords).toBeLessThan(log.records / 100);

    const before = heapUsed();
    const c = capture();
    expect(await runExplainCommand([log.path, 'default/target', '--json'], c.io)).toBe(0);
    expect(c.err).toEqual([]);
    expect(c.out.join('')).toBe(story);
    expect(held.records).toBe(historyRecords);
    expect(held.nodeRecords).toBe(1);
    expect(held.heapBytes - before).toBeLessThan(log.bytes * HELD_SHARE);
  }, 120_000);
});
