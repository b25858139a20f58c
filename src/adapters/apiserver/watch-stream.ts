/**
 * A watch's answer as the API server streams it: one JSON object `{ type, object }` per line
 * (chunks cut lines anywhere). Each event is handed on as it completes; the stream ends once:
 * `null` when the server closed it (its watch timeout: the caller watches again), the error when
 * the connection failed, or a line was not JSON (the server is not speaking the watch protocol).
 */
import type { Readable } from 'node:stream';

export interface WatchStreamHandlers {
  onEvent: (type: string, object: unknown) => void;
  onEnd: (err: Error | null) => void;
}

export function readWatchEvents(stream: Readable, handlers: WatchStreamHandlers): void {
  let pending = '';
  let ended = false;
  const end = (err: Error | null) => {
    if (ended) return;
    ended = true;
    handlers.onEnd(err);
    stream.destroy();
  };
  const line = (text: string) => {
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
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0 && !ended) {
      line(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  });
  stream.on('end', () => {
    if (!ended) line(pending);
    end(null);
  });
  stream.on('error', (err) => end(err));
  // A connection cut without an error event still ends the watch.
  stream.on('close', () => end(new Error('watch: the connection closed before the answer ended')));
}
