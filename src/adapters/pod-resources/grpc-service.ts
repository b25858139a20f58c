/**
 * The pod resources API's gRPC server (Go's server.ListenAndServePodResources with the v1
 * PodResourcesLister), on @grpc/grpc-js, bound to the socket behind the kubelet's front (server.ts
 * starts it on the first connection). Every call passes the rate limit first (Go's unary
 * interceptor), then is counted and answered from the state the source gives at that moment,
 * through the answer cache (answer-cache.ts): a List at an unchanged state sends the answer, and
 * its bytes, of the one before. A Go handler's plain error reaches its client as code Unknown with
 * the error's text; the answers here do the same.
 */
import * as grpc from '@grpc/grpc-js';
import { allocatableAnswer, GET_DISABLED_MESSAGE } from '../../domain/pod-resources/answers.js';
import { fullBucket, RATE_LIMIT_MESSAGE, takeToken, type TokenBucket } from '../../domain/pod-resources/rate-limit.js';
import type { GetPodResourcesRequest__Output } from '../../generated/v1/GetPodResourcesRequest.js';
import { closingGracefully, type InnerServer } from '../h2/grpc-front.js';
import { answerCache } from './answer-cache.js';
import { loadPodResourcesProto } from './pod-resources-proto.js';
import type { PodResourcesServerOptions } from './server.js';

export async function bindPodResourcesServer(socketPath: string, o: PodResourcesServerOptions): Promise<InnerServer> {
  const { requests, source } = o;
  const answers = answerCache(source, o.useActivePods, o.answerBuilders);
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
      return { answer: answers.list() };
    }),
    GetAllocatableResources: limited(() => {
      requests.total += 1;
      requests.getAllocatable += 1;
      return { answer: allocatableAnswer(source.state().allocatable) };
    }),
    Get: limited((request: GetPodResourcesRequest__Output) => {
      requests.total += 1;
      requests.get += 1;
      const got = o.getEnabled ? answers.get(request.pod_namespace, request.pod_name) : { ok: false as const, message: GET_DISABLED_MESSAGE };
      if (got.ok) return { answer: got.answer };
      requests.getErrors += 1;
      return { error: got.message };
    }),
  };
  const service = loadPodResourcesProto();
  const server = new grpc.Server();
  server.addService({ ...service, List: { ...service.List, responseSerialize: encodedOnce(service.List.responseSerialize) } }, handlers);
  await new Promise<void>((resolve, reject) => server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return closingGracefully(server);
}

/** The serializer, remembering the bytes of the last object it encoded: the cached List answer is encoded once. */
function encodedOnce(serialize: (value: object) => Buffer): (value: object) => Buffer {
  let last: { value: object; bytes: Buffer } | undefined;
  return (value) => {
    if (last?.value !== value) last = { value, bytes: serialize(value) };
    return last.bytes;
  };
}
