/**
 * What start-up opened, in the order it was opened, so an orderly stop can close it in reverse
 * (VS Code's disposables, the Go kubelet's reverse shutdown). Each close is bounded: one stuck
 * subsystem cannot hold the others open. The bound runs on the injected clock.
 */
import type { Clock } from '../../ports/clock.js';

export interface Lifetime {
  name: string;
  close: () => Promise<void> | void;
}

export interface StopReport {
  closed: string[];
  failed: { name: string; error: string }[];
  timedOut: string[];
}

export class Lifetimes {
  private readonly stack: Lifetime[] = [];

  constructor(private readonly clock: Clock) {}

  add(name: string, close: Lifetime['close']): void {
    this.stack.push({ name, close });
  }

  get names(): string[] {
    return this.stack.map((l) => l.name);
  }

  /** Close everything, newest first, each within `perItemMs`. Never throws. */
  async closeAll(perItemMs: number): Promise<StopReport> {
    const report: StopReport = { closed: [], failed: [], timedOut: [] };
    while (this.stack.length > 0) {
      const item = this.stack.pop()!;
      let timer: unknown;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = this.clock.setTimeout(() => resolve('timeout'), perItemMs);
      });
      try {
        const outcome = await Promise.race([Promise.resolve(item.close()).then(() => 'closed' as const), timeout]);
        if (outcome === 'timeout') report.timedOut.push(item.name);
        else report.closed.push(item.name);
      } catch (err) {
        report.failed.push({ name: item.name, error: err instanceof Error ? err.message : String(err) });
      } finally {
        this.clock.clearTimeout(timer);
      }
    }
    return report;
  }
}
