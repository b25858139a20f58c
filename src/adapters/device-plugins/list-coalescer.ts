/**
 * A device plugin's ListAndWatch answers, coalesced: each answer is the plugin's whole device list,
 * so only the latest matters. The first answer goes through at once; after that at most one per
 * interval reaches the kubelet (the latest, when it differs from the last one delivered), so a
 * plugin that sends lists back to back costs one decode-and-record per interval, not one per
 * message. A plugin that floods is named in the log, once per FLOOD_REPORT_MS.
 */

/** At most one device list per plugin per second: device health changes are rarer than that. */
export const LIST_COALESCE_MS = 1_000;
/** How often a flooding plugin is reported, with how many lists were passed over meanwhile. */
export const FLOOD_REPORT_MS = 60_000;

export interface ListCoalescerOptions<T> {
  deliver: (latest: T) => void;
  /** The same list as the last delivered: nothing to tell. */
  same: (a: T, b: T) => boolean;
  /** Lists passed over since the last report. */
  onFlood: (passedOver: number) => void;
  intervalMs?: number;
  floodReportMs?: number;
  nowMs?: () => number;
}

export interface ListCoalescer<T> {
  push(list: T): void;
  stop(): void;
}

export function createListCoalescer<T>(opts: ListCoalescerOptions<T>): ListCoalescer<T> {
  const intervalMs = opts.intervalMs ?? LIST_COALESCE_MS;
  const floodReportMs = opts.floodReportMs ?? FLOOD_REPORT_MS;
  const now = opts.nowMs ?? Date.now;
  let last: { list: T } | null = null;
  let lastAt = -Infinity;
  let pending: { list: T } | null = null;
  let timer: NodeJS.Timeout | null = null;
  let passedOver = 0;
  let reportedAt = -Infinity;

  const flush = () => {
    timer = null;
    const next = pending;
    pending = null;
    if (next === null) return;
    lastAt = now();
    if (last !== null && opts.same(last.list, next.list)) return;
    last = next;
    opts.deliver(next.list);
    if (passedOver > 0 && lastAt - reportedAt >= floodReportMs) {
      opts.onFlood(passedOver);
      passedOver = 0;
      reportedAt = lastAt;
    }
  };

  return {
    push(list) {
      if (pending !== null) passedOver++;
      pending = { list };
      if (timer !== null) return;
      const wait = lastAt + intervalMs - now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending = null;
    },
  };
}
