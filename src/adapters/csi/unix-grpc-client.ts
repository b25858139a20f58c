/**
 * A gRPC client on a unix socket for the node's plugins (a CSI driver's Identity and Node services,
 * a plugin's registration service), on @grpc/grpc-js: these calls are few and small, so the
 * library's limits (4 MiB messages, its HTTP/2 settings and keepalive) hold without a transport of
 * our own. Every call has a deadline, as the Go kubelet's CSI client sets one on every call.
 */
import * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { ServiceCodecs } from '../proto-service.js';

/** A unary call: the request's type in, the answer's out (the generated `__Output` shapes). */
export type UnaryMethods<D> = {
  [K in keyof D]: D[K] extends MethodDefinition<infer Req, infer _Res, infer _ReqOut, infer ResOut> ? (request: Req, timeoutMs: number) => Promise<ResOut> : never;
};

export interface UnixGrpcClient<D> {
  readonly call: UnaryMethods<D>;
  close(): void;
}

/** What a unary call needs of a method's codecs. */
interface UnaryCodecs { path: string; requestSerialize: (value: never) => Buffer; responseDeserialize: (bytes: Buffer) => unknown }

/**
 * A client of the service at `socketPath` (an absolute path): one method per entry of `codecs`.
 * `mapError` turns a failed call's error into the caller's (a message worded as Go's, say).
 */
export function unixGrpcClient<D extends { [K in keyof D]: UnaryCodecs }>(
  codecs: ServiceCodecs<D>, socketPath: string, mapError: (error: unknown) => unknown = (error) => error,
): UnixGrpcClient<D> {
  const client = new grpc.Client(`unix:${socketPath}`, grpc.credentials.createInsecure());
  const call: Record<string, (request: unknown, timeoutMs: number) => Promise<unknown>> = {};
  for (const [method, codec] of Object.entries<UnaryCodecs>(codecs)) {
    // cast: the request's type is the method's; grpc-js takes the serializer of any value.
    const serialize = codec.requestSerialize as (value: unknown) => Buffer;
    call[method] = (request, timeoutMs) => new Promise((resolve, reject) => {
      client.makeUnaryRequest(codec.path, serialize, codec.responseDeserialize, request, { deadline: Date.now() + timeoutMs }, (error, answer) => {
        if (error) reject(mapError(error));
        else resolve(answer);
      });
    });
  }
  // cast: one function per method of the definition, each typed by it; the keys are only known at run time.
  return { call: call as UnaryMethods<D>, close: () => client.close() };
}
