/**
 * The device manager's Registration server (Go: plugin/v1beta1 server.go Start, the manager's
 * CleanupPluginDirectory): the device-plugins directory made 0750 and emptied of every file but the
 * checkpoint (a plugin watching its socket sees it go and registers again), then v1beta1.Registration
 * served on its kubelet.sock, its gRPC server (registration-grpc.ts) started by the first connection
 * (../h2/grpc-front.ts). Its front bounds the connections (../h2/front-bounds.ts).
 */
import { lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEVICE_MANAGER_CHECKPOINT, KUBELET_DEVICE_PLUGIN_SOCKET } from '../../domain/device-manager/device-plugin-api.js';
import type { Logger } from '../../log.js';
import type { RegistrationHandlers } from '../../ports/device-plugins.js';
import type { FrontBounds } from '../h2/authority-proxy.js';
import { DEVICE_PLUGIN_REGISTRATION_FRONT_BOUNDS } from '../h2/front-bounds.js';
import { serveOnFirstConnection } from '../h2/grpc-front.js';

export interface PluginOptions { preStartRequired: boolean; getPreferredAllocationAvailable: boolean }

/** Every file in `dir` but the checkpoint removed; directories kept (Go's CleanupPluginDirectory). */
export async function cleanupPluginDirectory(dir: string, logger: Logger): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name === DEVICE_MANAGER_CHECKPOINT) continue;
    const path = join(dir, name);
    const info = await lstat(path).catch((err: unknown) => {
      logger.error({ err, path }, 'Failed to stat file');
      return null;
    });
    if (!info || info.isDirectory()) continue;
    await rm(path, { force: true });
  }
}

export interface RegistrationServerDeps {
  logger: Logger;
  /** Told once the plugin answered its options, before Register answers. */
  onPluginOptions(resourceName: string, socketPath: string, options: PluginOptions): void;
  /** The socket's connection bounds; front-bounds.ts's when absent. */
  connectionBounds?: FrontBounds;
}

export async function serveRegistration(dir: string, handlers: RegistrationHandlers, deps: RegistrationServerDeps): Promise<{ stop(): Promise<void> }> {
  const { logger } = deps;
  await mkdir(dir, { recursive: true, mode: 0o750 });
  await cleanupPluginDirectory(dir, logger);
  const socketPath = join(dir, KUBELET_DEVICE_PLUGIN_SOCKET);
  await rm(socketPath, { force: true });
  const bind = async (inner: string) => (await import('./registration-grpc.js')).bindRegistrationServer(inner, dir, handlers, deps);
  const front = await serveOnFirstConnection(socketPath, bind, logger, 'Device plugin registration', deps.connectionBounds ?? DEVICE_PLUGIN_REGISTRATION_FRONT_BOUNDS);
  logger.info({ socket: socketPath }, 'Serving device plugin registration server');
  return {
    stop: async () => {
      await front.close();
      await rm(socketPath, { force: true });
    },
  };
}
