/**
 * The shape both pod deletors share (Go's containerDeletor and podSandboxDeleter: a bounded channel
 * and one worker goroutine): requests wait in a bounded queue of the caller's (which coalesces as it
 * sees fit) and are worked through one at a time; a request the queue refuses is dropped with a log
 * line, the periodic GC getting what it named.
 */
import { fromCallback, type EventObject } from 'xstate';
import type { Logger } from '../../log.js';

export interface BoundedQueue<R> {
  /** False when the request was dropped: the queue is full. */
  add(request: R): boolean;
  next(): R | undefined;
}

/** The constant log messages of one deletor. */
export interface DeletorMessages {
  removed: string;
  listFailed: string;
  dropped: string;
}

/** `remove` answers the ids it removed; a failure to read the pod from the runtime is logged and the next request taken. */
export function oneAtATimeActor<R extends EventObject & { podUid: string }>(
  logger: Logger,
  newQueue: () => BoundedQueue<R>,
  remove: (request: R) => Promise<string[]>,
  messages: DeletorMessages,
) {
  const work = async (request: R) => {
    try {
      const removed = await remove(request);
      if (removed.length > 0) logger.debug({ podUID: request.podUid, removed }, messages.removed);
    } catch (err) {
      logger.warn({ err, podUID: request.podUid }, messages.listFailed);
    }
  };
  return fromCallback<R>(({ receive }) => {
    const queue = newQueue();
    let working = false;
    let stopped = false;
    const drain = async () => {
      working = true;
      for (let request = queue.next(); !stopped && request; request = queue.next()) await work(request);
      working = false;
    };
    receive((request) => {
      if (!queue.add(request)) {
        logger.info({ podUID: request.podUid }, messages.dropped);
        return;
      }
      if (!working) void drain();
    });
    return () => {
      stopped = true;
    };
  });
}
