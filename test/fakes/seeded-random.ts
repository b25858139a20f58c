import type { Random } from '../../src/ports/random.js';

/**
 * A repeatable Random for tests: mulberry32 over a 32-bit seed, so two fakes with the same seed draw
 * the same sequence. `drawn` records every number handed out.
 */
export class SeededRandom implements Random {
  readonly drawn: number[] = [];
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    this.drawn.push(value);
    return value;
  }
}
