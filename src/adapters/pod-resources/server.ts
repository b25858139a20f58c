/**
 * The pod resources API server (Go's server.ListenAndServePodResources with the v1
 * PodResourcesLister): a gRPC server on a unix socket, on @grpc/grpc-js. Every call passes the rate
 * limit first (Go's unary interceptor), then is counted and answered from the state the source
 * gives at that moment. A Go handler's plain error reaches its client as code Unknown with the
 * error's text; the answers here do the same.
 */
import { unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { KubeletError } from '../../domain/errors.js';
import { allocatableAnswer, getAnswer, GET_DISABLED_MESSAGE, listAnswer } from '../../domain/pod-resources/answers.js';
import { fullBucket, RATE_LIMIT_MESSAGE, takeToken, type TokenBucket } from '../../domain/pod-resources/rate-limit.js';
import type { PodResourcesRequests } from '../../domain/pod-resources/request-metrics.js';
import type { GetPodResourcesRequest__Output } from '../../generated/v1/GetPodResourcesRequest.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { PodResourcesSource } from '../../ports/pod-resources.js';
import { makeKubeletDirectory } from '../fs/make-directories.js';
import { loadPodResourcesProto } from './pod-resources-proto.js';

/** How long calls in flight may finish when the kubelet stops, before the server is closed under them. */
const SHUTDOWN_GRACE_MS = 2000;

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
}

export async function startPodResourcesServer(o: PodResourcesServerOptions): Promise<{ address: string; close: () => Promise<void> }> {
  const { requests, source } = o;
  let bucket: TokenBucket = fullBucket(o.clock.now(), o.rateLimit?.burst);
  const allowed = (): boolean => {
    const taken = takeToken(bucket, o.clock.now(), o.rateLimit?.qps, o.rateLimit?.burst);
    bucket = taken.bucket;
    return taken.allowed;
  };
  // Each handler runs behind the limiter, as Go's LimiterUnaryServerInterceptor wraps them all.
  const limited = <Req>(answer: (request: Req) => { error: string } | { answer: object }): grpc.handleUnaryCall<Req, object> =>
    (call, reply) => {
      if (!allowed()) return reply({ code: grpc.status.RESOURCE_EXHAUSTED, details: RATE_LIMIT_MESSAGE });
      try {
        const out = answer(call.request);
        if ('error' in out) reply({ code: grpc.status.UNKNOWN, details: out.error });
        else reply(null, out.answer);
      } catch (err) {
        o.logger.error({ err }, 'Pod resources call failed');
        reply({ code: grpc.status.INTERNAL, details: (err as Error).message });
      }
    };
  const handlers = {
    List: limited(() => {
      requests.total += 1;
      requests.list += 1;
      return { answer: listAnswer(source.state(), o.useActivePods) };
    }),
    GetAllocatableResources: limited(() => {
      requests.total += 1;
      requests.getAllocatable += 1;
      return { answer: allocatableAnswer(source.state().allocatable) };
    }),
    Get: limited((request: GetPodResourcesRequest__Output) => {
      requests.total += 1;
      requests.get += 1;
      const got = o.getEnabled ? getAnswer(source.state(), request.pod_namespace, request.pod_name) : { ok: false as const, message: GET_DISABLED_MESSAGE };
      if (got.ok) return { answer: got.answer };
      requests.getErrors += 1;
      return { error: got.message };
    }),
  };
  const server = new grpc.Server();
  server.addService(loadPodResourcesProto(), handlers);
  // Go's CreateListener: a socket left by an earlier run is removed first.
  await makeKubeletDirectory(dirname(o.socketPath), 0o750);
  await unlink(o.socketPath).catch(() => undefined);
  const address = `unix://${o.socketPath}`;
  try {
    await new Promise<void>((resolve, reject) => server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  } catch (err) {
    server.forceShutdown();
    throw new KubeletError('KLT_ERR_HOST_IO', `failed to create listener for the podResources endpoint ${JSON.stringify(o.socketPath)}: ${(err as Error).message}`, { cause: err });
  }
  o.logger.info({ endpoint: address }, 'Starting to serve the podresources API');
  let closed: Promise<void> | undefined;
  return {
    address,
    close: () => (closed ??= (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { server.forceShutdown(); resolve(); }, SHUTDOWN_GRACE_MS);
        server.tryShutdown(() => { clearTimeout(timer); resolve(); });
      });
      await unlink(o.socketPath).catch(() => undefined);
    })()),
  };
}
