import { describe, expect, it } from 'vitest';
import {
  CriLogStreamFormatter, formatCriLogRecord, formatRfc3339NanoUtc, wallClockNs,
} from '../../../../src/adapters/embedded-runtime/shim/cri-log-writer.js';

/** A clock that ticks one nanosecond per record, starting at 2026-11-21T23:21:55.897733982Z. */
function tickingClock(start = 1795303315897733982n): () => bigint {
  let now = start;
  return () => now++;
}

function collect(maxLineBytes?: number) {
  const records: string[] = [];
  const now = tickingClock();
  const sink = (record: Buffer) => records.push(record.toString('utf8'));
  return {
    records,
    stdout: new CriLogStreamFormatter('stdout', { sink, now, maxLineBytes }),
    stderr: new CriLogStreamFormatter('stderr', { sink, now, maxLineBytes }),
  };
}

describe('formatRfc3339NanoUtc', () => {
  it.each([
    [1795303315897733982n, '2026-11-21T23:21:55.897733982Z'],
    [1795303315897000000n, '2026-11-21T23:21:55.897Z'],
    [1795303315000000010n, '2026-11-21T23:21:55.00000001Z'],
    [1795303315000000000n, '2026-11-21T23:21:55Z'],
    [0n, '1970-01-01T00:00:00Z'],
  ])('formats %s as Go RFC3339Nano does (%s)', (ns, text) => {
    expect(formatRfc3339NanoUtc(ns)).toBe(text);
  });

  it('round-trips through Date to the millisecond', () => {
    const now = wallClockNs();
    expect(BigInt(Date.parse(formatRfc3339NanoUtc(now))) * 1_000_000n).toBe(now - (now % 1_000_000n));
  });
});

describe('formatCriLogRecord', () => {
  it('writes timestamp, stream, tag and content separated by single spaces, newline-terminated', () => {
    expect(formatCriLogRecord(1795303315897733982n, 'stderr', 'P', Buffer.from('a b')).toString())
      .toBe('2026-11-21T23:21:55.897733982Z stderr P a b\n');
    expect(formatCriLogRecord(1795303315897733982n, 'stdout', 'F', Buffer.alloc(0)).toString())
      .toBe('2026-11-21T23:21:55.897733982Z stdout F \n');
  });
});

describe('CriLogStreamFormatter', () => {
  it('writes one F record per complete line and holds an incomplete line back until its newline', () => {
    const { records, stdout } = collect();
    stdout.write(Buffer.from('hello\nwor'));
    expect(records).toHaveLength(1);
    stdout.write(Buffer.from('ld\n\n'));
    expect(records.map((r) => r.slice(31))).toEqual(['stdout F hello\n', 'stdout F world\n', 'stdout F \n']);
  });

  it('strips a CRLF line end like bufio ReadLine', () => {
    const { records, stdout } = collect();
    stdout.write(Buffer.from('dos\r\n'));
    expect(records[0]!.slice(31)).toBe('stdout F dos\n');
  });

  it('cuts lines longer than the cap into P records of exactly the cap, ending with F', () => {
    const { records, stdout } = collect(4);
    stdout.write(Buffer.from('abcdefghij'));
    expect(records.map((r) => r.slice(31))).toEqual(['stdout P abcd\n', 'stdout P efgh\n']);
    stdout.write(Buffer.from('\n'));
    expect(records.map((r) => r.slice(31))).toEqual(['stdout P abcd\n', 'stdout P efgh\n', 'stdout F ij\n']);
  });

  it('keeps a line of exactly the cap as one F record', () => {
    const { records, stdout } = collect(4);
    stdout.write(Buffer.from('abcd'));
    expect(records).toEqual([]);
    stdout.write(Buffer.from('\n'));
    expect(records.map((r) => r.slice(31))).toEqual(['stdout F abcd\n']);
  });

  it('flushes an unterminated last line as F at end of stream, and nothing when there is none', () => {
    const { records, stdout, stderr } = collect();
    stdout.write(Buffer.from('no newline'));
    stdout.end();
    stderr.end();
    expect(records.map((r) => r.slice(31))).toEqual(['stdout F no newline\n']);
  });

  it('interleaves stdout and stderr line by line in completion order, with increasing timestamps', () => {
    const { records, stdout, stderr } = collect();
    stdout.write(Buffer.from('out-1\nout-'));
    stderr.write(Buffer.from('err-1\n'));
    stdout.write(Buffer.from('2\n'));
    expect(records.map((r) => r.slice(31))).toEqual(['stdout F out-1\n', 'stderr F err-1\n', 'stdout F out-2\n']);
    const stamps = records.map((r) => r.slice(0, 30));
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps).size).toBe(3);
  });

  it('splits by bytes, not characters, so multi-byte text is cut at the cap', () => {
    const raw: Buffer[] = [];
    const stdout = new CriLogStreamFormatter('stdout', { sink: (r) => raw.push(r), now: tickingClock(), maxLineBytes: 3 });
    const text = Buffer.from('ééé\n'); // 6 bytes of content: 3 + 3
    stdout.write(text);
    const contents = raw.map((r) => r.subarray(31 + 'stdout P '.length, r.length - 1));
    expect(raw.map((r) => r.subarray(31, 39).toString())).toEqual(['stdout P', 'stdout F']);
    expect(Buffer.concat(contents)).toEqual(text.subarray(0, 6));
    expect(contents.map((c) => c.length)).toEqual([3, 3]);
  });

  it('rejects a non-positive cap', () => {
    expect(() => new CriLogStreamFormatter('stdout', { sink: () => undefined, maxLineBytes: 0 })).toThrow(RangeError);
  });
});
