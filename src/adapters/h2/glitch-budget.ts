/**
 * A token bucket for a peer's invalid or useless frames, as nghttp2 keeps one: a burst may be spent
 * at once, then the tokens come back at a steady rate; a peer that spends more is flooding.
 */
export class GlitchBudget {
  private tokens: number;
  private refilledAt: number;

  constructor(private readonly burst: number, private readonly ratePerSecond: number, private readonly now: () => number = Date.now) {
    if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`a glitch burst must be a positive integer, not ${burst}`);
    if (!(ratePerSecond >= 0)) throw new RangeError(`a glitch rate must be a number of tokens a second, at least 0, not ${ratePerSecond}`);
    this.tokens = burst;
    this.refilledAt = now();
  }

  /** Spends one token; false once there is none left, i.e. the peer floods. */
  spend(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.ratePerSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
