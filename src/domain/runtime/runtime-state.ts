/**
 * The runtime's health as the Go kubelet judges it (pkg/kubelet/runtime.go, updateRuntimeUp):
 * RuntimeReady and NetworkReady from CRI Status, and "down" when no Status call has succeeded for
 * 30 s (maxWaitForContainerRuntime). Pure: times are passed in.
 */
export const RUNTIME_DOWN_AFTER_MS = 30_000;
export const RUNTIME_STATUS_PERIOD_MS = 5_000;

export interface RuntimeCheck {
  observedAtMs: number;
  ok: boolean;
  /** From Status, when the call succeeded. */
  runtimeReady?: boolean;
  networkReady?: boolean;
  /** The runtime's own reasons, or the call's error. */
  message?: string;
}

export type RuntimeHealth = 'ready' | 'notReady' | 'down';

/**
 * A Status call that failed changes nothing for 30 s: Go's updateRuntimeUp returns on the error
 * without touching the runtime state, so the node keeps what the last good Status said (a
 * containerd restart is no NotReady). Past 30 s without a good one the runtime is down; before the
 * first good one it is not ready.
 */
export function runtimeHealth(check: RuntimeCheck, lastSuccess: RuntimeCheck | null, startedAtMs: number): { health: RuntimeHealth; reason: string } {
  if (!check.ok) {
    const since = lastSuccess?.observedAtMs ?? startedAtMs;
    if (check.observedAtMs - since >= RUNTIME_DOWN_AFTER_MS) {
      return { health: 'down', reason: `container runtime is down: no successful status for ${Math.round((check.observedAtMs - since) / 1000)}s (${check.message ?? 'unknown error'})` };
    }
    if (lastSuccess) return statusHealth(lastSuccess);
    return { health: 'notReady', reason: `container runtime status check failed: ${check.message ?? 'unknown error'}` };
  }
  return statusHealth(check);
}

/** What a successful Status says: RuntimeReady, then NetworkReady. */
function statusHealth(check: RuntimeCheck): { health: RuntimeHealth; reason: string } {
  if (!check.runtimeReady) return { health: 'notReady', reason: `container runtime not ready: ${check.message ?? 'RuntimeReady=false'}` };
  if (!check.networkReady) return { health: 'notReady', reason: `container runtime network not ready: ${check.message ?? 'NetworkReady=false'}` };
  return { health: 'ready', reason: '' };
}
