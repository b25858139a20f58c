import { describe, expect, it } from 'vitest';
import { DECODE_ERROR_BODY, INVALID_REQUEST_BODY, parseLogOptions } from '../../../src/domain/kubelet-server/log-options.js';

const NOW = 1_700_000_000_000;

describe('parseLogOptions', () => {
  it('defaults to everything, once, without timestamps', () => {
    expect(parseLogOptions({}, NOW)).toEqual({
      ok: true, options: { follow: false, previous: false, timestamps: false, tailLines: null, limitBytes: null, sinceMs: null },
    });
  });

  it('reads every option', () => {
    const r = parseLogOptions({ follow: 'true', previous: '1', timestamps: 'True', tailLines: '5', limitBytes: '100', sinceSeconds: '10' }, NOW);
    expect(r).toEqual({ ok: true, options: { follow: true, previous: true, timestamps: true, tailLines: 5, limitBytes: 100, sinceMs: NOW - 10_000 } });
  });

  it('decodes booleans as Go: only false and 0 are false', () => {
    const r = parseLogOptions({ follow: 'false', previous: '0', timestamps: '' }, NOW);
    expect(r.ok && r.options).toMatchObject({ follow: false, previous: false, timestamps: true });
  });

  it('takes the legacy tail parameter, and tail=all as no limit', () => {
    const a = parseLogOptions({ tail: '3' }, NOW);
    expect(a.ok && a.options.tailLines).toBe(3);
    const b = parseLogOptions({ tail: 'all', tailLines: '4' }, NOW);
    expect(b.ok && b.options.tailLines).toBeNull();
  });

  it('takes sinceTime as RFC 3339', () => {
    const r = parseLogOptions({ sinceTime: '2024-01-02T03:04:05Z' }, NOW);
    expect(r.ok && r.options.sinceMs).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
  });

  it.each([
    [{ tailLines: 'x' }], [{ limitBytes: '1.5' }], [{ sinceSeconds: '' }], [{ sinceTime: 'yesterday' }],
  ])('answers 400 to a value that does not decode: %j', (q) => {
    expect(parseLogOptions(q, NOW)).toEqual({ ok: false, status: 400, body: DECODE_ERROR_BODY });
  });

  it.each([
    [{ tailLines: '-1' }], [{ limitBytes: '0' }], [{ sinceSeconds: '0' }], [{ sinceSeconds: '5', sinceTime: '2024-01-02T03:04:05Z' }],
  ])('answers 422 to an invalid value: %j', (q) => {
    expect(parseLogOptions(q, NOW)).toEqual({ ok: false, status: 422, body: INVALID_REQUEST_BODY });
  });

  it('accepts any int64 as Go does, 2^63-1 included, clamped to an exact number (#60)', () => {
    const r = parseLogOptions({ tailLines: '9223372036854775807', limitBytes: '+0009223372036854775807', sinceSeconds: '9223372036854775807' }, NOW);
    expect(r).toEqual({ ok: true, options: expect.objectContaining({ tailLines: Number.MAX_SAFE_INTEGER, limitBytes: Number.MAX_SAFE_INTEGER, sinceMs: NOW - Number.MAX_SAFE_INTEGER * 1000 }) });
    expect(parseLogOptions({ tailLines: '-9223372036854775808' }, NOW)).toMatchObject({ ok: false, status: 422 });
  });

  it.each(['9223372036854775808', '-9223372036854775809', '1_000', ' 5'])('answers 400 to %j, outside int64 or not decimal digits, as Go does', (tailLines) => {
    expect(parseLogOptions({ tailLines }, NOW)).toEqual({ ok: false, status: 400, body: DECODE_ERROR_BODY });
  });

  it('uses the first of repeated values', () => {
    const r = parseLogOptions({ tailLines: ['2', '9'] }, NOW);
    expect(r.ok && r.options.tailLines).toBe(2);
  });
});
