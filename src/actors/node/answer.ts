/** Run one API step and answer as data stamped with the clock, so a failure is a journal fact, not a throw. */
import { serializeError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { ApiAnswer } from '../../machines/node-status.machine.js';

export async function answer<T>(clock: Clock, step: () => Promise<T>): Promise<ApiAnswer<T>> {
  try {
    const value = await step();
    return { ok: true, value, observedAtMs: clock.now() };
  } catch (err) {
    return { ok: false, error: serializeError(err), observedAtMs: clock.now() };
  }
}
