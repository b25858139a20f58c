/**
 * The device plugins' Registration service (Go: plugin/v1beta1 server.go Register) on @grpc/grpc-js,
 * bound to the socket behind kubelet.sock's front (registration-server.ts starts it on the first
 * connection). Register checks the request (Go's errors), dials the plugin's endpoint and asks for
 * its options, and answers only then, as Go does: a plugin whose socket cannot be reached gets the
 * dial's error.
 */
import * as grpc from '@grpc/grpc-js';
import { pluginSocketPath, registrationRefusal } from '../../domain/device-manager/device-plugin-api.js';
import type { RegisterRequest__Output } from '../../generated/v1beta1/RegisterRequest.js';
import type { RegistrationHandlers } from '../../ports/device-plugins.js';
import { closingGracefully, type InnerServer } from '../h2/grpc-front.js';
import { connectDevicePlugin } from './device-plugin-client.js';
import { loadDevicePluginProto } from './device-plugin-proto.js';
import type { RegistrationServerDeps } from './registration-server.js';

export async function bindRegistrationServer(socketPath: string, dir: string, handlers: RegistrationHandlers, deps: RegistrationServerDeps): Promise<InnerServer> {
  const { logger } = deps;
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
  await new Promise<void>((resolve, reject) => {
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
  });
  return closingGracefully(server);
}
