/**
 * When a certificate is renewed (client-go util/certificate, the certificate manager's
 * nextRotationDeadline): at a jittered 70–90 % of its validity, counted from notBefore, so a fleet
 * of nodes issued together does not renew together. A failed renewal is tried again after 2 s,
 * doubling up to 5 minutes; tries are never closer than a second (Go's loop runs under
 * wait.Until with a one-second period), whatever the signer answers.
 */
import type { SerializedError } from '../errors.js';

/** `jitter` in [0, 1): the deadline's place between 70 % and 90 % of the validity. */
export function rotationDeadlineMs(notBeforeMs: number, notAfterMs: number, jitter: number): number {
  const total = notAfterMs - notBeforeMs;
  return notBeforeMs + total * (0.7 + 0.2 * jitter);
}

/** The least time between the end of one try and the start of the next. */
export const MIN_TRY_INTERVAL_MS = 1000;

const FIRST_RETRY_MS = 2000;
const MAX_RETRY_MS = 5 * 60_000;

/** The wait before try `failures + 1` (failures ≥ 1). */
export function rotationRetryMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * The wait before the next scheduled renewal, counted from `observedAtMs`: until the deadline, and
 * at least MIN_TRY_INTERVAL_MS after a try (a certificate whose deadline has already passed when it
 * arrives must not make the next request at once).
 */
export function rotationWaitMs(rotateAtMs: number, observedAtMs: number, afterTry: boolean): number {
  return Math.max(afterTry ? MIN_TRY_INTERVAL_MS : 0, rotateAtMs - observedAtMs);
}

/** RFC 3339 to the second, as Go prints times in its x509 errors. */
const goTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Why a newly issued certificate (`what`: "client certificate", "serving certificate") cannot be
 * used at `nowMs`, in Go's crypto/x509 words for an expired or not yet valid certificate; null when
 * it can. Such a certificate is a failed renewal, backed off as any other.
 */
export function unusableIssuedCertificate(what: string, validity: { notBeforeMs: number; notAfterMs: number }, nowMs: number): SerializedError | null {
  const prefix = `the issued ${what} cannot be used: x509: certificate has expired or is not yet valid: current time ${goTime(nowMs)}`;
  if (nowMs > validity.notAfterMs) return { code: 'KLT_ERR_BOOTSTRAP', message: `${prefix} is after ${goTime(validity.notAfterMs)}`, retryable: true };
  if (nowMs < validity.notBeforeMs) return { code: 'KLT_ERR_BOOTSTRAP', message: `${prefix} is before ${goTime(validity.notBeforeMs)}`, retryable: true };
  return null;
}
