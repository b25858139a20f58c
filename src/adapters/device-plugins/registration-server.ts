/**
 * The device manager's Registration server (Go: plugin/v1beta1 server.go Start and Register, the
 * manager's CleanupPluginDirectory): the device-plugins directory made 0750 and emptied of every
 * file but the checkpoint (a plugin watching its socket sees it go and registers again), then
 * v1beta1.Registration served on its kubelet.sock. Register checks the request (Go's errors), dials
 * the plugin's endpoint and asks for its options, and answers only then, as Go does: a plugin whose
 * socket cannot be reached gets the dial's error.
 */
import * as grpc from '@grpc/grpc-js';
import { lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEVICE_MANAGER_CHECKPOINT, KUBELET_DEVICE_PLUGIN_SOCKET, pluginSocketPath, registrationRefusal,
} from '../../domain/device-manager/device-plugin-api.js';
import type { RegisterRequest__Output } from '../../generated/v1beta1/RegisterRequest.js';
import type { Logger } from '../../log.js';
import type { RegistrationHandlers } from '../../ports/device-plugins.js';
import { startAuthorityProxy } from './authority-proxy.js';
import { connectDevicePlugin } from './device-plugin-client.js';
import { loadDevicePluginProto } from './device-plugin-proto.js';

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
}

export async function serveRegistration(dir: string, handlers: RegistrationHandlers, deps: RegistrationServerDeps): Promise<{ stop(): Promise<void> }> {
  const { logger } = deps;
  await mkdir(dir, { recursive: true, mode: 0o750 });
  await cleanupPluginDirectory(dir, logger);
  const socketPath = join(dir, KUBELET_DEVICE_PLUGIN_SOCKET);
  const server = new grpc.Server();
  const register = async (r: RegisterRequest__Output): Promise<string | null> => {
    logger.info({ resourceName: r.resource_name }, 'Got registration request from device plugin with resource');
    const refusal = registrationRefusal({ version: r.version, resourceName: r.resource_name });
    const path = refusal === null ? pluginSocketPath(dir, r.endpoint) : null;
    const refused = refusal ?? (path === null ? `the endpoint ${JSON.stringify(r.endpoint)} is not a socket name in ${dir}` : null);
    handlers.onRegisterReceived(r.resource_name, r.endpoint, refused);
    if (refused !== null) {
      logger.info({ resourceName: r.resource_name, err: refused }, 'Bad registration request from device plugin with resource');
      return refused;
    }
    try {
      const client = await connectDevicePlugin(path!);
      try {
        const options = await client.options();
        deps.onPluginOptions(r.resource_name, path!, { preStartRequired: options.pre_start_required, getPreferredAllocationAvailable: options.get_preferred_allocation_available });
      } finally {
        client.close();
      }
    } catch (err) {
      logger.info({ err }, 'Error connecting to device plugin client');
      return err instanceof Error ? err.message : String(err);
    }
    handlers.onConnected(r.resource_name, path!);
    return null;
  };
  server.addService(loadDevicePluginProto().registration, {
    Register: (call: grpc.ServerUnaryCall<RegisterRequest__Output, object>, callback: grpc.sendUnaryData<object>) => {
      register(call.request).then(
        (error) => (error === null ? callback(null, {}) : callback({ code: grpc.status.UNKNOWN, details: error })),
        (err: unknown) => callback({ code: grpc.status.UNKNOWN, details: err instanceof Error ? err.message : String(err) }),
      );
    },
  });
  // The gRPC server listens in a directory of its own (0700); kubelet.sock is its front (authority-proxy.ts).
  const inner = await mkdtemp(join(tmpdir(), 'kubelet-ts-device-registration-'));
  const innerSocket = join(inner, 'registration.sock');
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(`unix://${innerSocket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
  });
  let front: { close(): Promise<void> };
  try {
    await rm(socketPath, { force: true });
    front = await startAuthorityProxy(socketPath, innerSocket, logger);
  } catch (err) {
    server.forceShutdown();
    await rm(inner, { recursive: true, force: true });
    throw err;
  }
  logger.info({ socket: socketPath }, 'Serving device plugin registration server');
  return {
    stop: async () => {
      await front.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await rm(socketPath, { force: true });
      await rm(inner, { recursive: true, force: true });
    },
  };
}
