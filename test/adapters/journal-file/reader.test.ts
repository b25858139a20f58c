/**
 * What `readJournal` says of a file that is not an event log (issue 14 item 13): each says why,
 * where all of these once read "is empty".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../../src/adapters/journal-file/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'kts-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = JSON.stringify({ format: 'kubelet-ts.journal', version: 1, kubeletVersion: 'v', startTime: 't', nodeName: 'n', configSha256: null, machinesSha256: 'x', segment: 1 });

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('readJournal on files that are not event logs', () => {
  it.each([
    ['an empty file', '', /is empty: not a kubelet-ts event log/],
    ['a byte-order mark before the header', `\uFEFF${HEADER}\n`, /not a kubelet-ts event log: it starts with a byte-order mark/],
    ['a header cut short', HEADER.slice(0, 40), /not a kubelet-ts event log: its header line is cut short/],
    ['binary bytes', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]), /not a kubelet-ts event log: it is binary/],
    ['another JSON Lines file', '{"level":30,"msg":"hello"}\n', /not a kubelet-ts event log \(no header on line 1\)/],
    ['text', 'hello world\n', /not a kubelet-ts event log: line 1 is not JSON/],
  ])('names %s', (name, content, message) => {
    expect(() => readJournal(file(`${name.replace(/\W+/g, '-')}.jsonl`, content))).toThrow(message);
  });

  it('names a format version it does not read, and the ones it does', () => {
    expect(() => readJournal(file('v5.jsonl', `${HEADER.replace('"version":1', '"version":5')}\n`))).toThrow(/is format version 5; this kubelet-ts reads versions 1, 2, 3, 4/);
  });

  it('still reads a log whose last line was torn by a crash, reporting the line', () => {
    const record = JSON.stringify({ seq: 1, t: 0, wall: 'w', actor: 'a', kind: 'input', type: 'event', name: 'x', source: null, payload: {} });
    const log = readJournal(file('torn.jsonl', `${HEADER}\n${record}\n{"seq":2,"t":`));
    expect(log.records).toHaveLength(1);
    expect(log.skipped).toEqual([{ file: expect.stringContaining('torn.jsonl'), line: 3, reason: 'torn last line' }]);
  });
});
