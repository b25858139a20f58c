/**
 * The grpc-js client a CRI service's calls go out on, renewed when the runtime's socket is a new one.
 *
 * grpc-js reconnects a lost channel on its own, but only when its back-off (100 ms → 3 s) runs out,
 * and a call made meanwhile fails at once. A runtime that restarts makes its socket anew, so a call
 * made while the channel is backing off looks at the socket path: a socket that is not the one the
 * channel was made for means the runtime is back, and the call goes out on a fresh channel, which
 * connects at once (otherwise a pod created just after the runtime returns waits for the back-off,
 * then for the pod worker's back-off after the failed sync). A socket left behind by a dead
 * runtime is the same file, so it changes nothing: the back-off goes on as before.
 *
 * The Go kubelet waits for grpc-go's back-off (same bounds) here; this is quicker, never slower.
 */
import { statSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import type { UnaryClient } from './unary-call.js';

export interface CriChannel {
  /** The client to call on now. */
  client(): UnaryClient;
  close(): void;
}

/**
 * The socket file at `path` as (device, inode, change time in ns), or null when there is no socket
 * there. The change time tells a new file apart from an old one: a file made after another was
 * removed often gets its inode number.
 */
function socketIdentity(path: string): string | null {
  try {
    const info = statSync(path, { bigint: true });
    return info.isSocket() ? `${info.dev}:${info.ino}:${info.ctimeNs}` : null;
  } catch {
    return null;
  }
}

export function socketChannel(target: string, socketPath: string, options: grpc.ChannelOptions, credentials = grpc.credentials.createInsecure()): CriChannel {
  // grpc-js shares a subchannel (the connection and its back-off) between channels to one target
  // unless each has a pool of its own: a fresh channel must not inherit the old one's back-off.
  const channelOptions: grpc.ChannelOptions = { ...options, 'grpc.use_local_subchannel_pool': 1 };
  const open = () => ({ client: new grpc.Client(target, credentials, channelOptions), socket: socketIdentity(socketPath) });
  let current = open();
  const backingOff = () => current.client.getChannel().getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE;
  return {
    client() {
      if (backingOff()) {
        const socket = socketIdentity(socketPath);
        if (socket !== null && socket !== current.socket) {
          current.client.close();
          current = open();
        }
      }
      return current.client;
    },
    close: () => current.client.close(),
  };
}
