/**
 * The timing shared by the source actors: read at start, then every period on the injected clock,
 * and soon after a watch event (debounced, so an editor's burst of writes is one read). Reads never
 * overlap: a trigger during a read causes one more read after it. A watch that ended by itself is
 * started again with the next read (or at a later poll, if the path cannot be watched yet).
 * Results go to the machine as `pod.source.snapshot` / `pod.source.failed`, stamped with the
 * clock's time; a snapshot identical to the last one sent is not sent again. Stopping clears the timers and closes the watch; a read still running is dropped.
 */
import type { PodSourceName } from '../../domain/pod-config/types.js';
import type { PodSourceEvent } from '../../machines/pod-config.machine.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { Closable, SourceRead } from '../../ports/pod-sources.js';

/** How long a watch event waits for more before the read (an editor writes in bursts). */
export const WATCH_DEBOUNCE_MS = 100;

export interface SourceLoopOptions {
  source: PodSourceName;
  periodMs: number;
  read: () => Promise<SourceRead>;
  /** Starts a watch; called at start and at every poll while no watch is running. */
  watch?: (onEvent: (event: 'changed' | 'lost') => void) => Closable;
  clock: Clock;
  logger: Logger;
  sendBack: (event: PodSourceEvent) => void;
}

export function runSourceLoop(opts: SourceLoopOptions): () => void {
  const { source, clock, logger } = opts;
  let stopped = false;
  let reading = false;
  let readAgain = false;
  let pollTimer: unknown = null;
  let debounceTimer: unknown = null;
  let watcher: Closable | null = null;
  let lastProblems = '';
  /** What the last snapshot sent said: a poll that reads the very same is not sent again. */
  let lastSnapshot = '';

  function deliver(result: SourceRead): void {
    const observedAtMs = clock.now();
    if (result.kind === 'unchanged') return;
    if (result.kind !== 'failed') {
      // The machine already holds this snapshot; resending it every period would only fill the journal.
      const key = JSON.stringify([result.pods, result.rejected]);
      if (key === lastSnapshot) return;
      lastSnapshot = key;
    } else {
      lastSnapshot = '';
    }
    const problems = result.kind === 'failed' ? [{ origin: result.origin, reason: result.reason }] : result.rejected;
    const key = JSON.stringify(problems);
    if (key !== lastProblems && problems.length > 0) logger.warn({ source, problems }, 'Pod source has manifests it cannot use');
    lastProblems = key;
    if (result.kind === 'failed') {
      opts.sendBack({ type: 'pod.source.failed', source, origin: result.origin, reason: result.reason, observedAtMs });
    } else {
      opts.sendBack({ type: 'pod.source.snapshot', source, pods: result.pods, rejected: result.rejected, observedAtMs });
    }
  }

  async function readNow(): Promise<void> {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    try {
      do {
        readAgain = false;
        let result: SourceRead;
        try {
          result = await opts.read();
        } catch (err) {
          result = { kind: 'failed', origin: source, reason: err instanceof Error ? err.message : String(err) };
        }
        if (stopped) return;
        deliver(result);
      } while (readAgain && !stopped);
    } finally {
      reading = false;
    }
  }

  function armWatch(): void {
    if (!opts.watch || watcher !== null || stopped) return;
    try {
      watcher = opts.watch((event) => {
        if (stopped) return;
        if (event === 'lost') watcher = null; // watched again with the read below, or at a later poll
        if (debounceTimer !== null) return;
        debounceTimer = clock.setTimeout(() => {
          debounceTimer = null;
          armWatch();
          void readNow();
        }, WATCH_DEBOUNCE_MS);
      });
    } catch (err) {
      logger.debug({ source, err }, 'Cannot watch pod source yet, polling only');
    }
  }

  function schedulePoll(): void {
    pollTimer = clock.setTimeout(() => {
      if (stopped) return;
      armWatch();
      void readNow();
      schedulePoll();
    }, opts.periodMs);
  }

  armWatch();
  void readNow();
  schedulePoll();

  return () => {
    stopped = true;
    if (pollTimer !== null) clock.clearTimeout(pollTimer);
    if (debounceTimer !== null) clock.clearTimeout(debounceTimer);
    watcher?.close();
    watcher = null;
  };
}
