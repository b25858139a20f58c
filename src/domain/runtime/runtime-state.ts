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

export function runtimeHealth(check: RuntimeCheck, lastSuccessAtMs: number | null, startedAtMs: number): { health: RuntimeHealth; reason: string } {
  if (!check.ok) {
    const since = lastSuccessAtMs ?? startedAtMs;
    if (check.observedAtMs - since >= RUNTIME_DOWN_AFTER_MS) {
      return { health: 'down', reason: `container runtime is down: no successful status for ${Math.round((check.observedAtMs - since) / 1000)}s (${check.message ?? 'unknown error'})` };
    }
    return { health: 'notReady', reason: `container runtime status check failed: ${check.message ?? 'unknown error'}` };
  }
  if (!check.runtimeReady) return { health: 'notReady', reason: `container runtime not ready: ${check.message ?? 'RuntimeReady=false'}` };
  if (!check.networkReady) return { health: 'notReady', reason: `container runtime network not ready: ${check.message ?? 'NetworkReady=false'}` };
  return { health: 'ready', reason: '' };
}
