/**
 * The kubelet's own ports, which a runtime whose pods share the host's network must never forward a
 * pod's port to: the kubelet server's (`port`), the read-only server's, healthz's and the debug
 * server's (`--debug-address`). A port 0 (off, or any free port) names nothing and is left out.
 */
import type { KubeletConfiguration } from '../config/types.js';

export interface ReservedPort {
  port: number;
  /** Whose port it is, for the refusal: "kubelet's server port (port)". */
  owner: string;
}

export function kubeletReservedPorts(config: Pick<KubeletConfiguration, 'port' | 'readOnlyPort' | 'healthzPort'>, debugAddress: string): ReservedPort[] {
  const debugPort = Number(/:(\d{1,5})$/.exec(debugAddress)?.[1] ?? 0);
  return [
    { port: config.port, owner: 'kubelet\'s server port (port)' },
    { port: config.readOnlyPort, owner: 'kubelet\'s read-only port (readOnlyPort)' },
    { port: config.healthzPort, owner: 'kubelet\'s healthz port (healthzPort)' },
    { port: debugPort, owner: 'kubelet\'s debug server port (--debug-address)' },
  ].filter((r) => r.port > 0);
}
