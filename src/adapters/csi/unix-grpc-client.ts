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

/** A client of the service `serviceName` at `socketPath` (an absolute path). */
export function unixGrpcClient<D>(codecs: ServiceCodecs<D>, serviceName: string, socketPath: string): UnixGrpcClient<D> {
  const Constructor = grpc.makeGenericClientConstructor(codecs as unknown as grpc.ServiceDefinition, serviceName);
  const client = new Constructor(`unix:${socketPath}`, grpc.credentials.createInsecure());
  const call = {} as Record<string, (request: unknown, timeoutMs: number) => Promise<unknown>>;
  for (const method of Object.keys(codecs as object)) {
    const invoke = (client as unknown as Record<string, grpc.requestCallback<unknown> & ((req: unknown, opts: grpc.CallOptions, cb: grpc.requestCallback<unknown>) => void)>)[method]!;
    call[method] = (request, timeoutMs) => new Promise((resolve, reject) => {
      invoke.call(client, request, { deadline: Date.now() + timeoutMs }, (error: grpc.ServiceError | null, answer?: unknown) => {
        if (error) reject(error);
        else resolve(answer);
      });
    });
  }
  return { call: call as UnaryMethods<D>, close: () => client.close() };
}
