/**
 * A CRI channel whose hottest calls (the relist's, every second) go out on a bare HTTP/2 client
 * (http2-unary-client.ts, which says why) and every other call on grpc-js's, both to one socket.
 */
import { http2UnaryClient } from './http2-unary-client.js';
import type { CriChannel } from './socket-channel.js';
import type { UnaryCallback, UnaryClient } from './unary-call.js';

export function withHotCallsOnHttp2(channel: CriChannel, socketPath: string, hotPaths: ReadonlySet<string>, maxMessageBytes: number): CriChannel {
  const bare = http2UnaryClient(socketPath, { maxMessageBytes });
  const routed: UnaryClient = {
    makeUnaryRequest<Req, Res>(
      path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req,
      options: { deadline: number }, callback: UnaryCallback<Res>,
    ): unknown {
      const client = hotPaths.has(path) ? bare : channel.client();
      return client.makeUnaryRequest(path, serialize, deserialize, request, options, callback);
    },
  };
  return {
    client: () => routed,
    close: () => {
      bare.close();
      channel.close();
    },
  };
}
