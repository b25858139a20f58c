import { join, resolve } from 'node:path';
import type { OperationCounts } from '../adapters/cri-grpc/instrumented.js';
import type { EmbeddedRuntime } from '../adapters/embedded-runtime/index.js';
import type { RuntimeConnector } from '../ports/runtime-connector.js';
import { actorLogger, type Logger } from '../log.js';

const CODEC_WARM_UP_DELAY_MS = 1000;

/**
 * CRI over gRPC to any endpoint; `embedded` is served in-process on a socket under --root-dir, and the
 * kubelet's own client calls it over its in-process channel (no HTTP/2 inside one process), while
 * the socket serves anyone else.
 * The CRI modules (the client and its codec; the embedded runtime, and grpc-js for its server, only
 * when it is used) are loaded here, at run.preInitRuntime, not when the daemon starts, so healthz,
 * which starts earlier, does not wait for their load (docs/FINDINGS.md).
 */
export function createRuntimeConnector(logger: Logger, counts: OperationCounts): RuntimeConnector {
  let embedded: EmbeddedRuntime | undefined;
  let codecsWarm = false;
  return {
    async startEmbedded(rootDir, reservedPorts) {
      const { startEmbeddedRuntime } = await import('../adapters/embedded-runtime/index.js');
      const stateDir = join(resolve(rootDir), 'embedded-runtime');
      const runtime = embedded = await startEmbeddedRuntime({
        socketPath: join(stateDir, 'cri.sock'),
        stateDir,
        logger: actorLogger(logger, 'embeddedRuntime', 'embeddedRuntime'),
        ...(reservedPorts ? { reservedPorts } : {}),
      });
      return { endpoint: runtime.endpoint, close: () => runtime.close() };
    },
    async connect(opts) {
      const [{ createCriClient, warmUpCriCodecs }, { instrumentCri }] = await Promise.all([import('../adapters/cri-grpc/index.js'), import('../adapters/cri-grpc/instrumented.js')]);
      const inProcess = embedded && { endpoint: embedded.endpoint, channel: embedded.inProcessChannel };
      if (!codecsWarm) {
        codecsWarm = true;
        // Once start-up's own calls are done, while no pod is likely to be starting yet. Only an
        // optimisation: should it ever fail, the codecs are built at their first use as before.
        setTimeout(() => {
          try {
            warmUpCriCodecs();
          } catch (err) {
            logger.warn({ err: String(err) }, 'Warming the CRI codecs failed; they are built at first use');
          }
        }, CODEC_WARM_UP_DELAY_MS).unref();
      }
      return instrumentCri(createCriClient({ ...opts, ...(inProcess && { inProcess }) }), counts);
    },
  };
}
