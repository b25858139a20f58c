/**
 * The systemd watchdog's feeder (the Go kubelet's SystemdWatchdog health checker): a round now and
 * then one every interval (half of WATCHDOG_USEC) after the last ended. A round sends WATCHDOG=1
 * only when healthz's checks pass (ping, log, syncloop, whose heartbeat is the PLEG's relist), so
 * a stuck syncLoop stops feeding it and systemd restarts the kubelet. A failed send is tried once
 * more a second later (Go's backoff: 1 s, 2 steps); no socket or no systemd-notify ends the round
 * at once. Nothing it does changes the kubelet's state: its rounds are log lines, not events.
 * Answers how to stop it.
 */
import type { Logger } from 'pino';
import { watchdogHealthProblem } from '../../domain/node/systemd-watchdog.js';
import type { Clock } from '../../ports/clock.js';
import type { SystemdNotifier } from '../../ports/host.js';

export interface SystemdWatchdogOptions {
  clock: Clock;
  intervalMs: number;
  notifier: Pick<SystemdNotifier, 'notifyWatchdog'>;
  /** healthz's checks, each null when healthy or why not. */
  checks: () => { name: string; problem: string | null }[];
  logger: Logger;
}

/** Go's retry backoff: the first retry a second after a failed send, and no more. */
export const WATCHDOG_RETRY_MS = 1000;

export function startSystemdWatchdog(o: SystemdWatchdogOptions): () => void {
  const { clock, logger } = o;
  let stopped = false;
  let timer: unknown;
  const sleep = (ms: number) => new Promise<void>((resolve) => (timer = clock.setTimeout(() => resolve(), ms)));

  const round = async () => {
    const problem = watchdogHealthProblem(o.checks());
    if (problem !== null) {
      logger.error({ err: problem }, 'Do not notify watchdog this iteration as the kubelet is reportedly not healthy');
      return;
    }
    let outcome = await o.notifier.notifyWatchdog();
    if (outcome === 'failed' && !stopped) {
      await sleep(WATCHDOG_RETRY_MS);
      if (stopped) return;
      outcome = await o.notifier.notifyWatchdog();
    }
    if (outcome === 'sent') logger.trace({ state: 'WATCHDOG=1' }, 'Watchdog plugin notified');
    else logger.error({ outcome }, 'Failed to notify watchdog');
  };

  const loop = async () => {
    await round();
    if (!stopped) timer = clock.setTimeout(() => void loop(), o.intervalMs);
  };
  logger.info({ interval: `${o.intervalMs / 1000}s` }, 'Starting systemd watchdog with interval');
  void loop();
  return () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
}
