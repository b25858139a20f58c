import { join, resolve } from 'node:path';
import type { OperationCounts } from '../adapters/cri-grpc/instrumented.js';
import type { RuntimeConnector } from '../ports/runtime-connector.js';
import { actorLogger, type Logger } from '../log.js';

/**
 * CRI over gRPC to any endpoint; `embedded` is served in-process on a socket under --root-dir.
 * The gRPC modules (grpc-js, the proto, the embedded runtime) are loaded here, at
 * run.preInitRuntime, not when the daemon starts: ~55 ms that healthz, which starts earlier, does
 * not wait for.
 */
export function createRuntimeConnector(logger: Logger, counts: OperationCounts): RuntimeConnector {
  return {
    async startEmbedded(rootDir) {
      const { startEmbeddedRuntime } = await import('../adapters/embedded-runtime/index.js');
      const stateDir = join(resolve(rootDir), 'embedded-runtime');
      const runtime = await startEmbeddedRuntime({
        socketPath: join(stateDir, 'cri.sock'),
        stateDir,
        logger: actorLogger(logger, 'embeddedRuntime', 'embeddedRuntime'),
      });
      return { endpoint: runtime.endpoint, close: () => runtime.close() };
    },
    async connect(opts) {
      const [{ createCriClient }, { instrumentCri }] = await Promise.all([import('../adapters/cri-grpc/index.js'), import('../adapters/cri-grpc/instrumented.js')]);
      return instrumentCri(createCriClient(opts), counts);
    },
  };
}
