/**
 * The resize channel: a stream of JSON objects `{"Width":W,"Height":H}`, one after another with no
 * separator required (Go reads it with a json.Decoder), split across messages however the client
 * likes. Each complete object becomes one TerminalSize; anything that is not one ends the channel's
 * use, as a decode error ends Go's loop.
 */
import type { Readable } from 'node:stream';
import type { TerminalSize } from '../sessions.js';

/** A client sending an endless object is cut off here. */
const MAX_PENDING_CHARS = 4096;

export function readResizeEvents(channel: Readable, emit: (size: TerminalSize) => void): void {
  let pending = '';
  let stopped = false;
  channel.on('data', (chunk: Buffer) => {
    if (stopped) return;
    pending += chunk.toString('utf8');
    for (;;) {
      const end = endOfFirstObject(pending);
      if (end === 'incomplete') break;
      const size = typeof end === 'number' ? terminalSize(pending.slice(0, end)) : undefined;
      if (!size || typeof end !== 'number') {
        stopped = true;
        return;
      }
      pending = pending.slice(end);
      emit(size);
    }
    if (pending.length > MAX_PENDING_CHARS) stopped = true;
  });
}

/** Index just past the first top-level JSON object in `text` (leading whitespace allowed). */
function endOfFirstObject(text: string): number | 'incomplete' | 'invalid' {
  let i = 0;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  if (i === text.length) return 'incomplete';
  if (text[i] !== '{') return 'invalid';
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return 'incomplete';
}

function terminalSize(text: string): TerminalSize | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { Width, Height } = parsed as { Width?: unknown; Height?: unknown };
  // Go decodes into uint16 fields: a missing one is 0, a wrong type is a decode error.
  const width = Width === undefined ? 0 : Width;
  const height = Height === undefined ? 0 : Height;
  if (!isUint16(width) || !isUint16(height)) return undefined;
  return { width, height };
}

function isUint16(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff;
}
