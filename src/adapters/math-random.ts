import type { Random } from '../ports/random.js';

/** The real randomness: Math.random. */
export const mathRandom: Random = {
  next: () => Math.random(),
};
