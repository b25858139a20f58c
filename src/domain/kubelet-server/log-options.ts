/**
 * The `/containerLogs` query, decoded and validated as the Go kubelet does (v1.PodLogOptions through
 * the parameter codec, then ValidatePodLogOptions). A value that does not decode (a non-integer
 * tailLines) is a 400 `{"message": "Unable to decode query."}`; a decoded but invalid one (negative
 * tailLines, limitBytes < 1, sinceSeconds < 1, both sinceSeconds and sinceTime) is a 422
 * `{"message": "Invalid request."}`. The legacy `tail` parameter stands for tailLines; `tail=all`
 * means no limit. Booleans decode as Go's query conversion does: anything but `false`/`0` is true.
 */
import { parseRfc3339Ms } from './cri-log-line.js';

export interface LogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines: number | null;
  limitBytes: number | null;
  /** Only records at or after this instant (epoch ms); from sinceSeconds or sinceTime. */
  sinceMs: number | null;
}

export type LogOptionsResult =
  | { ok: true; options: LogOptions }
  | { ok: false; status: 400 | 422; body: string };

export const DECODE_ERROR_BODY = '{"message": "Unable to decode query."}';
export const INVALID_REQUEST_BODY = '{"message": "Invalid request."}';

type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

function first(q: Query, key: string): string | undefined {
  const v = q[key];
  return typeof v === 'string' ? v : v?.[0];
}

function bool(q: Query, key: string): boolean {
  const v = first(q, key);
  if (v === undefined) return false;
  const lower = v.toLowerCase();
  return lower !== 'false' && lower !== '0';
}

/** Go's int64, the range strconv.ParseInt(s, 10, 64) accepts. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A decimal int64 as Go decodes it (a sign, then digits); undefined when absent, NaN when it does
 * not decode. Beyond 2^53 it is clamped: no log has that many lines or bytes, so the reader cannot
 * tell, and the number stays exact.
 */
function int(q: Query, key: string): number | undefined {
  const v = first(q, key);
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v)) return NaN;
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) return NaN;
  return Number(n > SAFE_MAX ? SAFE_MAX : n < -SAFE_MAX ? -SAFE_MAX : n);
}

/** `nowMs` turns sinceSeconds into an instant; the caller stamps it. */
export function parseLogOptions(query: Query, nowMs: number): LogOptionsResult {
  const q: Record<string, string | readonly string[] | undefined> = { ...query };
  const tail = first(q, 'tail');
  if (tail !== undefined && tail !== '') q.tailLines = tail === 'all' ? undefined : tail;

  const tailLines = int(q, 'tailLines');
  const limitBytes = int(q, 'limitBytes');
  const sinceSeconds = int(q, 'sinceSeconds');
  const sinceTimeText = first(q, 'sinceTime');
  const sinceTime = sinceTimeText === undefined ? undefined : parseRfc3339Ms(sinceTimeText);
  if ([tailLines, limitBytes, sinceSeconds, sinceTime].some((v) => v !== undefined && Number.isNaN(v))) {
    return { ok: false, status: 400, body: DECODE_ERROR_BODY };
  }
  const invalid =
    (tailLines !== undefined && tailLines < 0) ||
    (limitBytes !== undefined && limitBytes < 1) ||
    (sinceSeconds !== undefined && sinceSeconds < 1) ||
    (sinceSeconds !== undefined && sinceTime !== undefined);
  if (invalid) return { ok: false, status: 422, body: INVALID_REQUEST_BODY };

  const sinceMs = sinceSeconds !== undefined ? nowMs - sinceSeconds * 1000 : sinceTime ?? null;
  return {
    ok: true,
    options: {
      follow: bool(q, 'follow'),
      previous: bool(q, 'previous'),
      timestamps: bool(q, 'timestamps'),
      tailLines: tailLines ?? null,
      limitBytes: limitBytes ?? null,
      sinceMs,
    },
  };
}
