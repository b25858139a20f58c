/**
 * A watch's answer as the API server streams it: one JSON object `{ type, object }` per line
 * (chunks cut lines anywhere). Each event is handed on as it completes; the stream ends once:
 * `null` when the server closed it (its watch timeout: the caller watches again), the error when
 * the connection failed, or a line was not JSON (the server is not speaking the watch protocol).
 *
 * Linear in the event's size: only each new chunk is searched for the newline, a line's chunks are
 * kept as a list and joined once when it completes, and bytes become text once per line (so a
 * UTF-8 character cut between chunks is whole again).
 */
import type { Readable } from 'node:stream';

export interface WatchStreamHandlers {
  onEvent: (type: string, object: unknown) => void;
  onEnd: (err: Error | null) => void;
}

const NEWLINE = 0x0a;

export function readWatchEvents(stream: Readable, handlers: WatchStreamHandlers): void {
  let parts: Buffer[] = [];
  let ended = false;
  const end = (err: Error | null) => {
    if (ended) return;
    ended = true;
    handlers.onEnd(err);
    stream.destroy();
  };
  const line = (bytes: Buffer) => {
    const text = bytes.toString('utf8');
    if (text.trim() === '') return;
    let event: { type?: unknown; object?: unknown };
    try {
      event = JSON.parse(text) as { type?: unknown; object?: unknown };
    } catch {
      end(new Error(`watch: not a JSON event: ${text.slice(0, 200)}`));
      return;
    }
    if (typeof event.type !== 'string') {
      end(new Error(`watch: an event without a type: ${text.slice(0, 200)}`));
      return;
    }
    handlers.onEvent(event.type, event.object);
  };
  const completed = (tail: Buffer): Buffer => {
    const whole = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
    parts = [];
    return whole;
  };
  stream.on('data', (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline >= 0 && !ended) {
      line(completed(chunk.subarray(start, newline)));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  stream.on('end', () => {
    if (!ended) line(completed(Buffer.alloc(0)));
    end(null);
  });
  stream.on('error', (err) => end(err));
  // A connection cut without an error event still ends the watch.
  stream.on('close', () => end(new Error('watch: the connection closed before the answer ended')));
}
