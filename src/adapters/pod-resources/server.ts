/**
 * The pod resources API's socket (Go's ListenAndServePodResources): listening from start, its gRPC
 * server (grpc-service.ts) started by the first connection, as the device plugins' socket is
 * (../h2/grpc-front.ts). Its front bounds the connections (../h2/front-bounds.ts).
 */
import { unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KubeletError } from '../../domain/errors.js';
import type { PodResourcesRequests } from '../../domain/pod-resources/request-metrics.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { PodResourcesSource } from '../../ports/pod-resources.js';
import { makeKubeletDirectory } from '../fs/make-directories.js';
import type { FrontBounds } from '../h2/authority-proxy.js';
import { POD_RESOURCES_FRONT_BOUNDS } from '../h2/front-bounds.js';
import { serveOnFirstConnection } from '../h2/grpc-front.js';
import type { AnswerBuilders } from './answer-cache.js';

export interface PodResourcesServerOptions {
  socketPath: string;
  source: PodResourcesSource;
  /** The counters /metrics reports, incremented here. */
  requests: PodResourcesRequests;
  clock: Pick<Clock, 'now'>;
  getEnabled: boolean;
  useActivePods: boolean;
  logger: Logger;
  /** The rate limit; Go's DefaultQPS and DefaultBurstTokens when absent. */
  rateLimit?: { qps: number; burst: number };
  /** The socket's connection bounds; front-bounds.ts's when absent. */
  connectionBounds?: FrontBounds;
  /** How the List answer and its index are built; the domain's when absent (tests count builds). */
  answerBuilders?: AnswerBuilders;
}

export async function startPodResourcesServer(o: PodResourcesServerOptions): Promise<{ address: string; close: () => Promise<void> }> {
  // Go's CreateListener: a socket left by an earlier run is removed first.
  await makeKubeletDirectory(dirname(o.socketPath), 0o750);
  await unlink(o.socketPath).catch(() => undefined);
  const address = `unix://${o.socketPath}`;
  let served: { close(): Promise<void> };
  try {
    served = await serveOnFirstConnection(o.socketPath, async (inner) => (await import('./grpc-service.js')).bindPodResourcesServer(inner, o), o.logger, 'Pod resources API', o.connectionBounds ?? POD_RESOURCES_FRONT_BOUNDS);
  } catch (err) {
    throw new KubeletError('KLT_ERR_HOST_IO', `failed to create listener for the podResources endpoint ${JSON.stringify(o.socketPath)}: ${(err as Error).message}`, { cause: err });
  }
  o.logger.info({ endpoint: address }, 'Starting to serve the podresources API');
  let closed: Promise<void> | undefined;
  return {
    address,
    close: () => (closed ??= (async () => {
      await served.close();
      await unlink(o.socketPath).catch(() => undefined);
    })()),
  };
}
