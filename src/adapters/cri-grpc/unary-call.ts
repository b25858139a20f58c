/** One promise-returning unary call on a grpc-js generic client, with a deadline and our error mapping. */
import type * as grpc from '@grpc/grpc-js';
import { toKubeletError } from './grpc-errors.js';

type UnaryMethod = (
  request: object,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: unknown) => void,
) => grpc.ClientUnaryCall;

export function unaryCall<Res>(client: grpc.Client, rpc: string, request: object, timeoutMs: number): Promise<Res> {
  const method = (client as unknown as Record<string, UnaryMethod | undefined>)[rpc];
  if (typeof method !== 'function') {
    return Promise.reject(toKubeletError(new Error(`no such RPC in the loaded proto`), rpc));
  }
  return new Promise<Res>((resolve, reject) => {
    try {
      method.call(client, request, { deadline: Date.now() + timeoutMs }, (err, response) => {
        if (err) reject(toKubeletError(err, rpc));
        else resolve(response as Res);
      });
    } catch (err) {
      // grpc-js throws synchronously on a closed client or a request it cannot serialize.
      reject(toKubeletError(err, rpc));
    }
  });
}
