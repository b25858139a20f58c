/**
 * The node shutdown manager's effects:
 * - `watchShutdown`: Go's managerImpl.Start and start() over the Logind port. The first start's
 *   failure (no system bus, no logind, a delay logind would not raise) is logged once and answered
 *   `shutdown.watch.failed`; nothing more is tried, as Go's Start returns the error and the kubelet
 *   logs "Failed to start node shutdown manager" and runs on. Once started, a lost connection is
 *   watched again after the reconnect period (Go's dbusReconnectPeriod by default), each failure
 *   logged. Commands release and take again the delay lock.
 * - `listShutdownPods`: the active pods with their priority and own grace period (Go's getPods).
 */
import { fromCallback, fromPromise } from 'xstate';
import { serializeError } from '../../domain/errors.js';
import type { ShutdownPod } from '../../domain/node-shutdown/shutdown-groups.js';
import type { Pod } from '../../domain/pod/types.js';
import type { Logger } from '../../log.js';
import type { NodeShutdownEvent, WatchShutdownCommand, WatchShutdownInput } from '../../machines/node-shutdown.machine.js';
import type { Clock } from '../../ports/clock.js';
import type { InhibitLock, Logind, LogindConnection } from '../../ports/logind.js';

/** Go's dbusReconnectPeriod. */
export const DBUS_RECONNECT_PERIOD_MS = 1_000;

export interface NodeShutdownActorDeps {
  logind: Logind;
  /** The pods that are active (admitted, not being killed, not finished). */
  activePods: () => Pod[];
  clock: Clock;
  logger: Logger;
  /** How long after a lost connection (or a failed reconnect) logind is watched again; Go's period when absent. */
  reconnectPeriodMs?: number;
}

/** Go's start(): the bus, the delay (raised when short), the lock, the signal. Returns the connection and its lock. */
async function start(logind: Logind, periodRequestedMs: number, onSignal: (shuttingDown: boolean) => void): Promise<{ conn: LogindConnection; lock: InhibitLock; delayMs: number }> {
  const conn = await logind.connect();
  try {
    let delayMs = await conn.currentInhibitDelayMs();
    if (periodRequestedMs > delayMs) {
      try {
        await conn.overrideInhibitDelay(periodRequestedMs);
      } catch (err) {
        throw new Error(`unable to override inhibit delay by shutdown manager: ${(err as Error).message}`, { cause: err });
      }
      await conn.reloadLogindConf();
      delayMs = await conn.currentInhibitDelayMs();
      if (periodRequestedMs > delayMs) {
        throw new Error(
          `node shutdown manager was unable to update logind InhibitDelayMaxSec to ${periodRequestedMs / 1000}s (ShutdownGracePeriod), ` +
          `current value of InhibitDelayMaxSec (${delayMs / 1000}s) is less than requested ShutdownGracePeriod`,
        );
      }
    }
    const lock = await conn.inhibitShutdown();
    try {
      await conn.monitorShutdown(onSignal);
    } catch (err) {
      await lock.release();
      throw new Error(`failed to monitor shutdown: ${(err as Error).message}`, { cause: err });
    }
    return { conn, lock, delayMs };
  } catch (err) {
    conn.close();
    throw err;
  }
}

export function createNodeShutdownActors(deps: NodeShutdownActorDeps) {
  const { logind, clock, logger } = deps;
  const reconnectPeriodMs = deps.reconnectPeriodMs ?? DBUS_RECONNECT_PERIOD_MS;
  return {
    watchShutdown: fromCallback<WatchShutdownCommand, WatchShutdownInput>(({ input, sendBack, receive }) => {
      const send = (e: NodeShutdownEvent) => sendBack(e);
      let stopped = false;
      let conn: LogindConnection | null = null;
      let lock: InhibitLock | null = null;
      let timer: unknown = null;
      // Commands run one after the other, as Go's loop handles one event at a time.
      let queue: Promise<void> = Promise.resolve();
      const later = (work: () => Promise<void>) => { queue = queue.then(work).catch((err: unknown) => logger.error({ err }, 'Shutdown manager: lock operation failed')); };

      const run = async (first: boolean): Promise<void> => {
        try {
          const started = await start(logind, input.periodRequestedMs, (shuttingDown) => {
            logger.info({ event: shuttingDown ? 'shutdown' : 'cancelled' }, 'Shutdown manager detected new shutdown event');
            send({ type: 'shutdown.prepare.signalled', shuttingDown });
          });
          if (stopped) {
            await started.lock.release();
            started.conn.close();
            return;
          }
          ({ conn, lock } = started);
          started.conn.onClose(() => {
            logger.error('Ended to watching the node for shutdown events');
            conn = null;
            void lock?.release();
            lock = null;
            if (!stopped) timer = clock.setTimeout(() => void run(false), reconnectPeriodMs);
          });
          if (first) {
            logger.info({ inhibitDelayMaxMs: started.delayMs }, 'Node shutdown manager started: holding a delay inhibitor lock');
            send({ type: 'shutdown.watch.started', inhibitDelayMs: started.delayMs });
          }
        } catch (err) {
          if (first) {
            logger.error({ err }, 'Failed to start node shutdown manager');
            send({ type: 'shutdown.watch.failed', error: serializeError(err) });
            return;
          }
          logger.error({ err }, 'Unable to watch the node for shutdown events');
          if (!stopped) timer = clock.setTimeout(() => void run(false), reconnectPeriodMs);
        }
      };
      void run(true);

      receive((command) => {
        if (command.type === 'shutdown.lock.release') {
          later(async () => {
            const held = lock;
            lock = null;
            await held?.release();
            logger.info('Shutdown manager completed processing shutdown event, node will shutdown shortly');
          });
        } else {
          later(async () => {
            if (!conn || lock) return;
            lock = await conn.inhibitShutdown();
          });
        }
      });

      return () => {
        stopped = true;
        if (timer !== null) clock.clearTimeout(timer);
        const held = lock;
        lock = null;
        void held?.release().finally(() => conn?.close());
        if (!held) conn?.close();
      };
    }),
    listShutdownPods: fromPromise<ShutdownPod[], Record<string, never>>(async () =>
      deps.activePods().map((pod) => ({
        uid: pod.metadata.uid ?? '',
        ...(pod.spec.priority !== undefined ? { priority: pod.spec.priority } : {}),
        ...(pod.spec.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: pod.spec.terminationGracePeriodSeconds } : {}),
      })),
    ),
  };
}
