/**
 * What start-up opened, in the order it was opened, so an orderly stop can close it in reverse
 * (VS Code's disposables, the Go kubelet's reverse shutdown). Each close is bounded: one stuck
 * subsystem cannot hold the others open.
 */
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
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), perItemMs);
      });
      try {
        const outcome = await Promise.race([Promise.resolve(item.close()).then(() => 'closed' as const), timeout]);
        if (outcome === 'timeout') report.timedOut.push(item.name);
        else report.closed.push(item.name);
      } catch (err) {
        report.failed.push({ name: item.name, error: err instanceof Error ? err.message : String(err) });
      } finally {
        clearTimeout(timer);
      }
    }
    return report;
  }
}
