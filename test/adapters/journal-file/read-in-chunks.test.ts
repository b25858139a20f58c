/**
 * The journal read in chunks gives what it gave read whole: the same records and skipped lines
 * whatever the chunk size, with a line, a character of several bytes or a header cut by a chunk's
 * end, rotated segments, references put back, and a torn last line.
 */
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forEachLine } from '../../../src/adapters/journal-file/read-lines.js';
import { openJournal, readJournal } from '../../../src/adapters/journal-file/reader.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalRecord } from '../../../src/domain/journal/record.js';

const dir = mkdtempSync(join(tmpdir(), 'kts-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Small enough that every line, character and header is cut somewhere; the last, larger than the files. */
const CHUNK_SIZES = [1, 2, 3, 5, 7, 16, 64, 1 << 20];

const header = (segment: number) => JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION, kubeletVersion: 'v', startTime: 't', nodeName: 'n', configSha256: null, machinesSha256: 'x', segment });
const record = (seq: number, payload: unknown) => JSON.stringify({ seq, t: seq, wall: 'w', actor: 'a', kind: 'input', type: 'event', name: 'x', source: null, payload });
/** Two, three and four bytes a character in UTF-8. */
const NAME = 'wéb-日本-😀';
const pod = { metadata: { name: NAME, namespace: 'default', uid: 'u1' }, spec: { containers: [{ name: 'main', image: 'busybox' }] } };

/** Three segments behind a `latest.jsonl` link, in a directory of their own. */
function journal(name: string): { link: string; active: string } {
  const sub = join(dir, name);
  mkdirSync(sub);
  const path = join(sub, 'run.jsonl');
  writeFileSync(`${path}.1`, [header(1), record(1, { pod }), record(2, { again: { $pod: [1, 0] } }), '{"seq":3,damage', record(3, { text: NAME }), '{"seq":4,"t"'].join('\n'));
  writeFileSync(`${path}.2`, [header(2), record(4, { text: `${NAME}${NAME}` }), '{"not":"a record"}', record(6, { pods: [{ $pod: [1, 0] }] }), ''].join('\n'));
  writeFileSync(path, [header(3), record(7, { text: NAME.repeat(5) }), '{"seq":8,"t":'].join('\n'));
  const link = join(sub, 'latest.jsonl');
  symlinkSync(path, link);
  return { link, active: path };
}

function readInChunks(link: string, chunkBytes: number): { records: JournalRecord[]; skipped: unknown[] } {
  const opened = openJournal(link, { chunkBytes });
  try {
    const records: JournalRecord[] = [];
    const { skipped } = opened.forEachRecord((r) => records.push(r));
    return { records, skipped };
  } finally {
    opened.close();
  }
}

describe('openJournal', () => {
  const { link, active } = journal('read');

  it.each(CHUNK_SIZES)('reads in chunks of %i bytes what the log holds, as readJournal does', (chunkBytes) => {
    const { records, skipped } = readInChunks(link, chunkBytes);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 6, 7]);
    expect(records.map((r) => r.payload)).toEqual([
      { pod }, { again: pod }, { text: NAME }, { text: `${NAME}${NAME}` }, { pods: [pod] }, { text: NAME.repeat(5) },
    ]);
    // A pod written by reference is the very pod read before (explain's walks rely on it).
    const [first, second] = records as [JournalRecord & { payload: { pod: object } }, JournalRecord & { payload: { again: object } }];
    expect(second.payload.again).toBe(first.payload.pod);
    expect(skipped).toEqual([
      { file: `${active}.1`, line: 4, reason: 'not JSON' },
      // Cut short, but not the log's last line: damage.
      { file: `${active}.1`, line: 6, reason: 'not JSON' },
      { file: `${active}.2`, line: 3, reason: 'not a journal record' },
      { file: active, line: 3, reason: 'torn last line' },
    ]);
    const whole = readJournal(link);
    expect(records).toEqual(whole.records);
    expect(skipped).toEqual(whole.skipped);
  });

  it('reads again the very bytes it read first, though the log grew and rotated since', () => {
    const { link, active } = journal('grown');
    const opened = openJournal(link, { chunkBytes: 7 });
    try {
      const read = () => {
        const records: JournalRecord[] = [];
        return { ...opened.forEachRecord((r) => records.push(r)), records };
      };
      const first = read();
      appendFileSync(active, `0}\n${record(9, {})}\n`);
      renameSync(active, `${active}.3`);
      writeFileSync(active, `${header(4)}\n`);
      expect(read()).toEqual(first);
    } finally {
      opened.close();
    }
  });
});

describe('forEachLine', () => {
  const lines = (content: string, chunkBytes: number) => {
    const path = join(dir, 'lines');
    writeFileSync(path, content);
    const fd = openSync(path, 'r');
    try {
      const out: [string, number, boolean][] = [];
      const bytes = forEachLine(fd, (text, line, last) => out.push([text, line, last]), { chunkBytes });
      return { out, bytes };
    } finally {
      closeSync(fd);
    }
  };

  it.each([
    ['a\nb\n', [['a', 1, false], ['b', 2, true]]],
    ['a\nb', [['a', 1, false], ['b', 2, true]]],
    ['a\n\n', [['a', 1, false], ['', 2, true]]],
    ['\n', [['', 1, true]]],
    ['', []],
    ['é\n😀x', [['é', 1, false], ['😀x', 2, true]]],
  ])('splits %j as split("\\n") less a final empty line, in any chunk size', (content, want) => {
    for (const chunkBytes of CHUNK_SIZES) expect(lines(content, chunkBytes), `chunks of ${chunkBytes}`).toEqual({ out: want, bytes: Buffer.byteLength(content) });
  });
});
