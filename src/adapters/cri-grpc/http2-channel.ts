/**
 * The CRI channel to a runtime's unix socket: every call on one bare HTTP/2 client
 * (http2-unary-client.ts says what of gRPC it speaks and why grpc-js is not on this path).
 */
import { http2UnaryClient } from './http2-unary-client.js';
import type { CriChannel } from './unary-call.js';

export function http2Channel(socketPath: string, maxMessageBytes: number): CriChannel {
  const client = http2UnaryClient(socketPath, { maxMessageBytes });
  return { client: () => client, close: () => client.close() };
}
