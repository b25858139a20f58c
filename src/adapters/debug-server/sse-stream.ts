/**
 * Journal records to one browser as server-sent events, with back-pressure that never reaches
 * the kubelet: each client has a bounded queue; the kubelet only enqueues (O(1)); records go to
 * the socket while it accepts them and wait for 'drain' when it does not. When the queue is full
 * the oldest waiting record is dropped and counted, and the client is told `dropped` with the count
 * before the next record it gets. So a slow page loses records, never the kubelet's time.
 */
import type { ServerResponse } from 'node:http';
import type { JournalRecord } from '../../domain/journal/record.js';
import type { JournalFeedSource } from './journal-feed.js';

export interface SseStreamOptions {
  /** Records waiting per client before the oldest are dropped. */
  maxQueue?: number;
  /** A comment line every so often keeps proxies and the browser from timing the stream out. */
  keepAliveMs?: number;
}

export interface SseClientStats {
  sent: number;
  dropped: number;
  queued: number;
}

export function streamRecords(res: ServerResponse, feed: JournalFeedSource, opts: SseStreamOptions = {}): SseClientStats {
  const maxQueue = opts.maxQueue ?? 1000;
  const stats: SseClientStats = { sent: 0, dropped: 0, queued: 0 };
  const queue: JournalRecord[] = [];
  let head = 0;
  let unreported = 0;
  let waitingForDrain = false;
  let closed = false;

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': kubelet-ts journal stream\n\n');

  const pump = () => {
    while (!closed && !waitingForDrain && head < queue.length) {
      let chunk = '';
      if (unreported > 0) {
        chunk += `event: dropped\ndata: ${JSON.stringify({ dropped: unreported, total: stats.dropped })}\n\n`;
        unreported = 0;
      }
      const r = queue[head++]!;
      chunk += `id: ${r.seq}\ndata: ${JSON.stringify(r)}\n\n`;
      stats.sent += 1;
      if (!res.write(chunk)) waitingForDrain = true;
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
    stats.queued = queue.length - head;
  };
  // The kubelet's side: enqueue, drop the oldest when full, and let the pump run later.
  let scheduled = false;
  const unsubscribe = feed.subscribe((record) => {
    if (closed) return;
    if (queue.length - head >= maxQueue) {
      head += 1;
      stats.dropped += 1;
      unreported += 1;
    }
    queue.push(record);
    stats.queued = queue.length - head;
    if (!scheduled && !waitingForDrain) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        pump();
      });
    }
  });
  res.on('drain', () => {
    waitingForDrain = false;
    pump();
  });
  const keepAlive = setInterval(() => {
    if (!waitingForDrain) res.write(': keep-alive\n\n');
  }, opts.keepAliveMs ?? 15_000);
  keepAlive.unref();
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    unsubscribe();
    queue.length = 0;
  };
  res.on('close', close);
  res.on('error', close);
  return stats;
}
