/** One promise-returning unary call on a CRI channel's client, with a deadline and our error mapping. */
import { toKubeletError } from './grpc-errors.js';
import type { ServiceError } from './grpc-status.js';

/** How a unary call ends: grpc-js's callback shape, which every CRI channel keeps. */
export type UnaryCallback<Res> = (err: ServiceError | null, response?: Res) => void;

/**
 * What a unary call needs of a client: the bare HTTP/2 client of a runtime's socket
 * (http2-unary-client.ts) or a channel that serves the call in the process (the embedded runtime's,
 * in-process-channel.ts). grpc-js's `Client` has the same method.
 */
export interface UnaryClient {
  makeUnaryRequest<Req, Res>(
    path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req,
    options: { deadline: number }, callback: UnaryCallback<Res>,
  ): unknown;
}

/** Where a CRI service's calls go out: a runtime's socket (http2-channel.ts) or a runtime in this process. */
export interface CriChannel {
  /** The client to call on now. */
  client(): UnaryClient;
  close(): void;
}

/** What a unary call needs of a generated method definition: its path and its two codecs. */
export interface UnaryMethod<Req, Res> {
  readonly path: string;
  readonly requestSerialize: (request: Req) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => Res;
}

/** The RPC's name (`/runtime.v1.RuntimeService/Version` → `Version`), for error messages. */
function rpcName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function unaryCall<Req, Res>(client: UnaryClient, method: UnaryMethod<Req, Res>, request: Req, timeoutMs: number): Promise<Res> {
  const rpc = rpcName(method.path);
  return new Promise<Res>((resolve, reject) => {
    try {
      client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, request, { deadline: Date.now() + timeoutMs }, (err, response) => {
        if (err) reject(toKubeletError(err, rpc));
        else if (response === undefined) reject(toKubeletError(new Error('no answer'), rpc));
        else resolve(response);
      });
    } catch (err) {
      // A codec throws synchronously on a request it cannot serialize.
      reject(toKubeletError(err, rpc));
    }
  });
}
