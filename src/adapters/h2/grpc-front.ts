/**
 * A gRPC service on a unix socket whose server is started by its first connection. Every kubelet
 * serves two from start (the device plugins' Registration and the pod resources API), and most nodes
 * never get a call on either; @grpc/grpc-js and the services' codecs would be a few MiB of an idle
 * kubelet's heap. So the socket listens at once, as a plain socket (what a client dials), and the
 * first connection starts the gRPC server on a socket in a private directory of its own; every
 * connection reaches it through the authority front (authority-proxy.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../log.js';
import { startAuthorityProxy, type FrontBounds } from './authority-proxy.js';

/** A started gRPC server; close lets its calls in flight finish first. */
export interface InnerServer { close(): Promise<void> }

/** How long calls in flight may finish when the kubelet stops, before the server is closed under them. */
const SHUTDOWN_GRACE_MS = 2000;

/** A grpc-js server as an InnerServer: close waits for its calls up to the grace, then shuts it under them. */
export function closingGracefully(server: { tryShutdown(done: () => void): void; forceShutdown(): void }): InnerServer {
  return {
    close: () => new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, SHUTDOWN_GRACE_MS);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    }),
  };
}

interface Started { dir: string; socket: string; server: InnerServer }

/**
 * Listens on `listenPath`; `start` is called with the inner socket's path at the first connection
 * (again at a later one if it failed). close stops the gRPC server, if it was started, before the
 * connections through the front are cut. `bounds`, when given, bound the front's connections.
 */
export async function serveOnFirstConnection(listenPath: string, start: (innerSocket: string) => Promise<InnerServer>, logger: Logger, what: string, bounds?: FrontBounds): Promise<{ close(): Promise<void> }> {
  let started: Promise<Started> | undefined;
  const startOnce = () => (started ??= (async () => {
    // 0700: only this process reaches the server behind the front.
    const dir = await mkdtemp(join(tmpdir(), 'kubelet-ts-grpc-'));
    const socket = join(dir, 'grpc.sock');
    try {
      return { dir, socket, server: await start(socket) };
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      started = undefined;
      throw err;
    }
  })());
  const front = await startAuthorityProxy(listenPath, async () => (await startOnce()).socket, logger, what, bounds);
  return {
    close: async () => {
      const inner = await started?.catch(() => undefined);
      if (inner) {
        await inner.server.close();
        await rm(inner.dir, { recursive: true, force: true });
      }
      await front.close();
    },
  };
}
