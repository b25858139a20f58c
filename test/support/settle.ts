/**
 * Lets the work already set in motion finish: promises that have resolved run their callbacks, and
 * the actors they wake take their next step. One round is one turn of the event loop (setImmediate
 * runs after the I/O callbacks already due). No clock advances and nothing is waited for by time:
 * the fakes these tests use answer at once, so after `rounds` turns their answers have landed.
 */
export async function settle(rounds = 1): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
