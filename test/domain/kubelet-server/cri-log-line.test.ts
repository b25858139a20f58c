import { describe, expect, it } from 'vitest';
import { parseCriLogLine, parseRfc3339Ms, renderCriLogRecord } from '../../../src/domain/kubelet-server/cri-log-line.js';

describe('parseCriLogLine', () => {
  it('reads a full stdout line', () => {
    const rec = parseCriLogLine('2024-01-02T03:04:05.123456789Z stdout F hello world\n');
    expect(rec).toMatchObject({ timestamp: '2024-01-02T03:04:05.123456789Z', stream: 'stdout', partial: false, content: 'hello world' });
    expect(rec!.timeMs).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
  });

  it('reads a partial stderr line with extra tags and an empty content', () => {
    expect(parseCriLogLine('2024-01-02T03:04:05Z stderr P:x part')).toMatchObject({ stream: 'stderr', partial: true, content: 'part' });
    expect(parseCriLogLine('2024-01-02T03:04:05Z stdout F')).toMatchObject({ content: '' });
  });

  it.each([
    'not a log line',
    'yesterday stdout F x',
    '2024-01-02T03:04:05Z stdin F x',
    '2024-01-02T03:04:05Z stdout X x',
    '2024-01-02T03:04:05Z',
  ])('rejects %j', (line) => {
    expect(parseCriLogLine(line)).toBeNull();
  });

  it('renders full lines with a newline, partial lines without, timestamps on request', () => {
    const full = parseCriLogLine('2024-01-02T03:04:05.5Z stdout F a')!;
    const part = parseCriLogLine('2024-01-02T03:04:05.5Z stdout P b')!;
    expect(renderCriLogRecord(full, false)).toBe('a\n');
    expect(renderCriLogRecord(part, false)).toBe('b');
    expect(renderCriLogRecord(full, true)).toBe('2024-01-02T03:04:05.5Z a\n');
  });

  it('parses offsets and rejects malformed timestamps', () => {
    expect(parseRfc3339Ms('2024-01-02T03:04:05+01:00')).toBe(Date.UTC(2024, 0, 2, 2, 4, 5));
    expect(parseRfc3339Ms('2024-01-02 03:04:05')).toBeNaN();
  });
});
