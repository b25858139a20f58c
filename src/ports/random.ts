/**
 * The only source of randomness outside machines (jitters). Real: Math.random; tests: a seeded
 * sequence, so a run that draws numbers can be repeated exactly.
 */
export interface Random {
  /** A number in [0, 1), uniformly distributed. */
  next(): number;
}
