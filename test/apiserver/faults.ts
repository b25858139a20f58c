/**
 * Fault injection state, consulted once per request: an added latency and a queue of canned
 * failures. Connection-level faults (refused connections, dropped watches) are in server.ts, which
 * owns the sockets.
 */

export interface RequestInfo {
  method: string;
  path: string;
}

interface PendingFailure {
  remaining: number;
  status: number;
  match: (r: RequestInfo) => boolean;
}

export class FaultState {
  delayMs = 0;
  private readonly failures: PendingFailure[] = [];

  failNext(n: number, status: number, match: (r: RequestInfo) => boolean = () => true): void {
    if (n > 0) this.failures.push({ remaining: n, status, match });
  }

  /** The status to fail this request with, consuming one from the first matching entry. */
  takeFailure(r: RequestInfo): number | undefined {
    const entry = this.failures.find((f) => f.remaining > 0 && f.match(r));
    if (entry === undefined) return undefined;
    entry.remaining--;
    if (entry.remaining === 0) this.failures.splice(this.failures.indexOf(entry), 1);
    return entry.status;
  }

  reset(): void {
    this.delayMs = 0;
    this.failures.length = 0;
  }
}
