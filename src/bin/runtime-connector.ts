import { join, resolve } from 'node:path';
import { createCriClient } from '../adapters/cri-grpc/index.js';
import { instrumentCri, type OperationCounts } from '../adapters/cri-grpc/instrumented.js';
import { startEmbeddedRuntime } from '../adapters/embedded-runtime/index.js';
import type { RuntimeConnector } from '../ports/runtime-connector.js';
import { actorLogger, type Logger } from '../log.js';

/** CRI over gRPC to any endpoint; `embedded` is served in-process on a socket under --root-dir. */
export function createRuntimeConnector(logger: Logger, counts: OperationCounts): RuntimeConnector {
  return {
    async startEmbedded(rootDir) {
      const stateDir = join(resolve(rootDir), 'embedded-runtime');
      const runtime = await startEmbeddedRuntime({
        socketPath: join(stateDir, 'cri.sock'),
        stateDir,
        logger: actorLogger(logger, 'embeddedRuntime', 'embeddedRuntime'),
      });
      return { endpoint: runtime.endpoint, close: () => runtime.close() };
    },
    connect: (opts) => instrumentCri(createCriClient(opts), counts),
  };
}
