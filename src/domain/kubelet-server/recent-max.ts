/**
 * The largest value recorded over a recent window (a minute by default), in bounded memory: one
 * slot per second of the window holds that second's largest value, and a slot is reused once its
 * second has left the window. A histogram says how often something was slow since start; this
 * says how slow it was lately, which is what an operator looking at a busy node asks.
 */
export class RecentMax {
  private readonly slots: { second: number; max: number }[];

  constructor(private readonly windowSeconds = 60) {
    this.slots = Array.from({ length: windowSeconds }, () => ({ second: -Infinity, max: 0 }));
  }

  record(nowMs: number, value: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = this.slots[((second % this.windowSeconds) + this.windowSeconds) % this.windowSeconds]!;
    if (slot.second !== second) {
      slot.second = second;
      slot.max = value;
    } else if (value > slot.max) {
      slot.max = value;
    }
  }

  /** The largest value recorded in the window ending at `nowMs`; 0 when nothing was. */
  max(nowMs: number): number {
    const oldest = Math.floor(nowMs / 1000) - this.windowSeconds;
    let max = 0;
    for (const s of this.slots) if (s.second > oldest && s.max > max) max = s.max;
    return max;
  }
}
