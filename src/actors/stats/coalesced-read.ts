/**
 * One expensive read shared by every caller that asks while it runs, its answer reused while fresh,
 * and a bound on how many callers may wait for it.
 *
 * Without it, every concurrent GET /stats/summary makes its own set of CRI list/stats calls: under a
 * burst of them the runtime's answers time out (CRI deadline exceeded) and the kubelet's own CRI
 * Status checks fail with them (docs/FINDINGS.md). Go's summary provider leans on cAdvisor's
 * housekeeping cache for the same reason.
 * Here a caller arriving while a read runs waits for that read; a caller arriving within `maxAgeMs`
 * of a successful read gets its answer; past `maxWaiting` waiting callers, a caller is refused at
 * once (KLT_ERR_STATS_BUSY, which the server answers with 503 and Retry-After) rather than queued.
 * A failed read is not reused: the next caller reads again.
 */
import { KubeletError } from '../../domain/errors.js';

export interface CoalescedReadOptions {
  /** A successful answer younger than this is answered again without reading (ms). */
  maxAgeMs: number;
  /** Callers that may wait for the running read; the next one is refused. */
  maxWaiting: number;
  /** What is read, for the refusal's message. */
  what: string;
  /** The injected clock's reading (ms): actors take time from the Clock port. */
  now: () => number;
}

export class CoalescedRead<T> {
  private running: Promise<T> | null = null;
  private waiting = 0;
  private last: { value: T; at: number } | null = null;
  private readonly now: () => number;

  constructor(private readonly read: () => Promise<T>, private readonly opts: CoalescedReadOptions) {
    this.now = opts.now;
  }

  get(): Promise<T> {
    if (this.last && this.now() - this.last.at < this.opts.maxAgeMs) return Promise.resolve(this.last.value);
    if (!this.running) return this.start();
    if (this.waiting >= this.opts.maxWaiting) {
      return Promise.reject(new KubeletError('KLT_ERR_STATS_BUSY', `${this.waiting} requests already wait for the ${this.opts.what}`, { retryable: true }));
    }
    this.waiting += 1;
    return this.running.finally(() => (this.waiting -= 1));
  }

  private start(): Promise<T> {
    const startedAt = this.now();
    const running = this.read().then((value) => {
      this.last = { value, at: startedAt };
      return value;
    }).finally(() => (this.running = null));
    this.running = running;
    return running;
  }
}
