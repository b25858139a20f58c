/**
 * When a certificate is renewed (client-go util/certificate, the certificate manager's
 * nextRotationDeadline): at a jittered 70–90 % of its validity, counted from notBefore, so a fleet
 * of nodes issued together does not renew together. A failed renewal is tried again after 2 s,
 * doubling up to 5 minutes.
 */

/** `jitter` in [0, 1): the deadline's place between 70 % and 90 % of the validity. */
export function rotationDeadlineMs(notBeforeMs: number, notAfterMs: number, jitter: number): number {
  const total = notAfterMs - notBeforeMs;
  return notBeforeMs + total * (0.7 + 0.2 * jitter);
}

const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 5 * 60_000;

/** The wait before try `failures + 1` (failures ≥ 1). */
export function rotationRetryMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
}
