/**
 * The systemd watchdog's setting, as the Go kubelet's SystemdWatchdog reads it (go-systemd's
 * SdWatchdogEnabled): systemd hands a unit with WatchdogSec its timeout in WATCHDOG_USEC and, for
 * the main process, WATCHDOG_PID. No WATCHDOG_USEC, or a WATCHDOG_PID naming another process (a
 * child that inherited the environment), means the watchdog is not this process's to feed. The
 * kubelet feeds it at half the timeout, and refuses to start on a malformed value or a timeout of
 * a second or less (its minimal notify interval).
 */

export type WatchdogSetting = { enabled: false } | { enabled: true; timeoutMs: number; intervalMs: number };

/** Go's minimalNotifyInterval: a timeout must be longer than this. */
export const WATCHDOG_MIN_TIMEOUT_MS = 1000;

const DIGITS = /^\d+$/;

/** The setting from the environment, or an Error whose message says which variable is wrong. */
export function watchdogSetting(env: Record<string, string | undefined>, ownPid: number): WatchdogSetting | Error {
  const usec = env['WATCHDOG_USEC'];
  if (usec === undefined || usec === '') return { enabled: false };
  if (!DIGITS.test(usec) || Number(usec) <= 0) {
    return new Error(`configure watchdog: WATCHDOG_USEC must be a positive number of microseconds, got ${JSON.stringify(usec)}`);
  }
  const pid = env['WATCHDOG_PID'];
  if (pid !== undefined && pid !== '') {
    if (!DIGITS.test(pid)) return new Error(`configure watchdog: WATCHDOG_PID must be a process id, got ${JSON.stringify(pid)}`);
    if (Number(pid) !== ownPid) return { enabled: false };
  }
  const timeoutMs = Number(usec) / 1000;
  if (timeoutMs <= WATCHDOG_MIN_TIMEOUT_MS) {
    return new Error(`configure watchdog timeout too small: ${timeoutMs}ms (WATCHDOG_USEC=${usec}); it must be longer than ${WATCHDOG_MIN_TIMEOUT_MS}ms`);
  }
  return { enabled: true, timeoutMs, intervalMs: timeoutMs / 2 };
}

/** Whether a round may feed the watchdog: null when every check passes, else why not (the first failed check, as Go's doCheck). */
export function watchdogHealthProblem(results: readonly { name: string; problem: string | null }[]): string | null {
  const failed = results.find((r) => r.problem !== null);
  return failed ? `checker ${failed.name} failed: ${failed.problem}` : null;
}
