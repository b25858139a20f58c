/** run.preInitRuntime's way to a CRI runtime: the embedded one started, or a socket dialled. */
import type { ReservedPort } from '../domain/runtime/reserved-ports.js';
import type { CriClient } from './cri.js';

export interface RuntimeConnector {
  /** Start the embedded CRI runtime under rootDir; returns its endpoint. Its port forwards never reach `reservedPorts`. */
  startEmbedded(rootDir: string, reservedPorts?: readonly ReservedPort[]): Promise<{ endpoint: string; close: () => Promise<void> }>;
  connect(opts: { endpoint: string; imageEndpoint?: string; runtimeRequestTimeoutMs: number }): Promise<CriClient>;
}
