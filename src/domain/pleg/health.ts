/**
 * PLEG health (GenericPLEG.Healthy): unhealthy until the first successful relist, and when the last
 * one is more than relistThreshold (3 minutes) old. The node status turns NotReady on it ("PLEG is
 * not healthy: …").
 */

export const plegRelistThresholdMs = 3 * 60 * 1000;

export interface PlegHealth { healthy: boolean; message?: string }

function goDuration(ms: number): string {
  const totalSeconds = ms / 1000;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds - minutes * 60;
  const s = Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(3).replace(/0+$/, '');
  return minutes > 0 ? `${minutes}m${s}s` : `${s}s`;
}

export function plegHealth(lastRelistAtMs: number | null, nowMs: number, thresholdMs = plegRelistThresholdMs): PlegHealth {
  if (lastRelistAtMs === null) return { healthy: false, message: 'pleg has yet to be successful' };
  const elapsed = nowMs - lastRelistAtMs;
  if (elapsed > thresholdMs) {
    return { healthy: false, message: `pleg was last seen active ${goDuration(elapsed)} ago; threshold is ${goDuration(thresholdMs)}` };
  }
  return { healthy: true };
}

export function isPlegHealthy(lastRelistAtMs: number | null, nowMs: number, thresholdMs = plegRelistThresholdMs): boolean {
  return plegHealth(lastRelistAtMs, nowMs, thresholdMs).healthy;
}
