/**
 * Terminal sizes from the resize stream (SPDY) or channel (WebSocket), the same for both: the client's Go json.Encoder writes one
 * `{"Width":80,"Height":24}` object after another (each followed by a newline, which we do not rely
 * on). Like Go's json.Decoder on the server, the first thing that is not such an object ends the
 * decoding; the stream is still read to its end afterwards, so an odd client cannot stall the
 * session's other streams. A single object is capped in size: no newline-free flood is held.
 */
import type { Readable } from 'node:stream';
import type { TerminalSize } from './sessions.js';

const MAX_OBJECT_BYTES = 4096;

/** Splits text into top-level JSON objects by brace depth, minding strings and escapes. */
export class ConcatenatedJsonObjects {
  private text = '';
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private broken = false;

  /** Returns the complete objects the text finishes; throws once the input is not a run of objects. */
  push(chunk: string): unknown[] {
    if (this.broken) throw new Error('resize stream is not a run of JSON objects');
    this.text += chunk;
    const objects: unknown[] = [];
    let start = 0;
    for (let i = this.scanned; i < this.text.length; i++) {
      const c = this.text[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (this.depth === 0) {
        if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
          start = i + 1;
          continue;
        }
        if (c !== '{') return this.fail();
      }
      if (c === '"') this.inString = true;
      else if (c === '{') this.depth++;
      else if (c === '}') {
        this.depth--;
        if (this.depth === 0) {
          try {
            objects.push(JSON.parse(this.text.slice(start, i + 1)));
          } catch {
            return this.fail();
          }
          start = i + 1;
        }
      }
    }
    this.text = this.text.slice(start);
    this.scanned = this.text.length;
    if (this.text.length > MAX_OBJECT_BYTES) return this.fail();
    return objects;
  }

  private fail(): never {
    this.broken = true;
    this.text = '';
    throw new Error('resize stream is not a run of JSON objects');
  }
}

function asTerminalSize(value: unknown): TerminalSize | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { Width, Height } = value as { Width?: unknown; Height?: unknown };
  // Go decodes into uint16 fields: a missing field is 0, anything else is an error.
  const width = Width === undefined ? 0 : Width;
  const height = Height === undefined ? 0 : Height;
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffff;
  return valid(width) && valid(height) ? { width, height } : undefined;
}

/** Reads sizes off a resize stream and hands each to `deliver`, until the stream ends or goes wrong. */
export function readTerminalSizes(stream: Readable, deliver: (size: TerminalSize) => void): void {
  const objects = new ConcatenatedJsonObjects();
  let decoding = true;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (!decoding) return;
    try {
      for (const value of objects.push(chunk)) {
        const size = asTerminalSize(value);
        if (!size) throw new Error('not a terminal size');
        deliver(size);
      }
    } catch {
      decoding = false;
    }
  });
  stream.on('error', () => undefined);
}
