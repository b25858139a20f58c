/**
 * What the plugin manager decides about a DRA driver's kubelet plugin at registration (Go:
 * pkg/kubelet/cm/dra/plugin's DRAPluginManager.ValidatePlugin and RegisterPlugin). A DRA plugin's
 * "supported versions" name the gRPC services it serves as `<proto package's last part>.<service>`;
 * the kubelet takes the first of them it can call. Pure.
 */
import { briefList } from '../text/brief-list.js';

/** The plugin type a DRA driver's kubelet plugin registers as. */
export const DRA_PLUGIN_TYPE = 'DRAPlugin';

/** The DRAPlugin services the kubelet calls, as plugins name them, newest first (Go: servicesSupportedByKubelet). */
export const DRA_PLUGIN_SERVICES = ['v1.DRAPlugin', 'v1beta1.DRAPlugin'] as const;

export type DraPluginService = (typeof DRA_PLUGIN_SERVICES)[number];

/** A DRA plugin Go would go on to register: its endpoint resolved and the service it will be called on. */
export interface ValidDraPlugin {
  name: string;
  endpoint: string;
  service: DraPluginService;
}

const isKnownService = (service: string): service is DraPluginService => (DRA_PLUGIN_SERVICES as readonly string[]).includes(service);

/** Go's %q of a list of strings: `["a" "b"]`. */
const quotedList = (entries: readonly string[]): string => `[${briefList(entries, (entry) => JSON.stringify(entry))}]`;

/**
 * The service the kubelet will call (Go: validateSupportedServices): the first of the plugin's list
 * the kubelet knows. The plugin's order decides, not the kubelet's: a plugin listing v1beta1 before
 * v1 is called on v1beta1, as Go does.
 */
export function chooseDraService(supported: readonly string[]): { service: DraPluginService } | { error: string } {
  if (supported.length === 0) return { error: 'empty list of supported gRPC services (aka supported versions)' };
  const service = supported.find(isKnownService);
  if (service === undefined) {
    return { error: `none of services supported by the plugin (${quotedList(supported)}) are supported by the kubelet (${quotedList(DRA_PLUGIN_SERVICES)})` };
  }
  return { service };
}

/** Go's wrapping of a refused service list, naming the driver and its endpoint. */
export function draServicesRefusal(name: string, endpoint: string, error: string): string {
  return `invalid supported gRPC versions of DRA driver plugin ${name} at endpoint ${endpoint}: ${error}`;
}

/** Why Go refuses a second plugin of a driver on an endpoint one of its plugins has already. */
export function draEndpointTakenMessage(name: string, endpoint: string): string {
  return `endpoint ${endpoint} already registered for DRA driver plugin ${name}`;
}

/** Go's GetPlugin refusal for a driver with no plugin to call, or null when it has one. */
export function draPluginMissing(driverName: string, registered: boolean): string | null {
  if (driverName === '') return 'DRA driver name is empty';
  return registered ? null : `DRA driver ${driverName} is not registered`;
}
