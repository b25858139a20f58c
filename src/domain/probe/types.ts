/**
 * Probe vocabulary shared by the probe worker machine, the probe actors and the probers.
 * Everything here is plain JSON so it can cross actor boundaries and sit in the journal.
 */

/** Which probe of a container a worker runs (Go: prober's probeType). */
export type ProbeType = 'liveness' | 'readiness' | 'startup';

/**
 * A probe's verdict as the kubelet keeps it (Go: prober/results.Result). `unknown` is only ever an
 * initial value (the startup probe's, before its first verdict), never the outcome of counting.
 */
export type ProbeResult = 'success' | 'failure' | 'unknown';

/**
 * One probe attempt as a prober reports it (Go: probe.Result plus output and error).
 * - `success`: healthy (Go's probe.Success, and probe.Warning such as a redirect to another host).
 * - `failure`: unhealthy (non-2xx/3xx, refused connection, non-zero exit, timeout).
 * - `unknown`: the probe could not be run at all (Go: an error from runProbe, e.g. a port name that
 *   the container does not declare). Go discards such attempts: they count neither way.
 */
export interface ProbeOutcome {
  result: 'success' | 'failure' | 'unknown';
  /** What the prober saw: response body, command output or error text (bounded, for events/logs). */
  output?: string;
  /** A success Go calls a warning (probe.Warning: an HTTP redirect that was not followed); it earns a Warning event. */
  warning?: true;
  /**
   * When the attempt ended, on the kubelet's clock (stamped by the probe actor): a verdict it changes
   * moves the pod's Ready condition at this time, not at the last runtime read's.
   */
  observedAtMs?: number;
}

/** A probe handler resolved against the container and the pod's addresses: everything a prober needs. */
export type ProbeTarget =
  | { kind: 'exec'; containerId: string; command: string[]; timeoutSeconds: number }
  | {
      kind: 'httpGet';
      /** Absolute URL: scheme, host:port and path (with query) as Go's formatURL builds it. */
      url: string;
      /** Canonical header names (Go's http.Header), each with its values in order. */
      headers: Record<string, string[]>;
      timeoutSeconds: number;
    }
  | { kind: 'tcpSocket'; host: string; port: number; timeoutSeconds: number }
  | { kind: 'grpc'; host: string; port: number; service: string; timeoutSeconds: number }
  /** The handler could not be resolved (no handler, unknown port name, bad port): the attempt is `unknown`. */
  | { kind: 'unresolvable'; reason: string };
