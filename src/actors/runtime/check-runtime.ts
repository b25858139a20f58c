/**
 * The runtime machine's effect: one CRI Status call, answered as data (never a rejection), stamped
 * with the injected clock's time.
 */
import { fromPromise } from 'xstate';
import { serializeError } from '../../domain/errors.js';
import type { RuntimeCheck } from '../../domain/runtime/runtime-state.js';
import type { Clock } from '../../ports/clock.js';
import type { CriRuntimeService } from '../../ports/cri.js';

export function checkRuntimeActor(runtime: () => CriRuntimeService, clock: Clock) {
  return fromPromise<RuntimeCheck>(async () => {
    try {
      const { status } = await runtime().status(false, { timeoutMs: 2000 });
      const conditions = status?.conditions ?? [];
      const cond = (type: string) => conditions.find((c) => c.type === type);
      const notReady = conditions.filter((c) => !c.status).map((c) => `${c.type}=false reason:${c.reason} message:${c.message}`);
      return {
        observedAtMs: clock.now(),
        ok: true,
        runtimeReady: cond('RuntimeReady')?.status === true,
        networkReady: cond('NetworkReady')?.status === true,
        ...(notReady.length > 0 ? { message: notReady.join('; ') } : {}),
      };
    } catch (err) {
      return { observedAtMs: clock.now(), ok: false, message: serializeError(err).message };
    }
  });
}
