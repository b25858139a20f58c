/**
 * The device plugin API's fixed facts and the Registration service's checks (Go:
 * k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1 constants; pkg/kubelet/cm/devicemanager/plugin/
 * v1beta1/server.go Register). Register answers an error naming what is wrong, worded as Go's, for
 * a version the kubelet does not speak or a resource name that is not an extended resource name.
 */
import { isExtendedResourceName } from '../pod/resource-names.js';

/** The API versions this kubelet serves (Go: SupportedVersions). */
export const SUPPORTED_DEVICE_PLUGIN_VERSIONS = ['v1beta1'] as const;

/**
 * Where Go v1.26 keeps its socket and checkpoint whatever --root-dir says (DevicePluginPath): the
 * sample plugin and every vendor's register there. `--device-plugins-dir` moves it.
 */
export const DEFAULT_DEVICE_PLUGINS_DIR = '/var/lib/kubelet/device-plugins';
/** The kubelet's Registration socket in that directory (KubeletSocket's name). */
export const KUBELET_DEVICE_PLUGIN_SOCKET = 'kubelet.sock';
/** The device manager's checkpoint in that directory. */
export const DEVICE_MANAGER_CHECKPOINT = 'kubelet_internal_checkpoint';

/** A plugin whose stream ended keeps its resource (devices unhealthy) this long before the resource goes (endpointStopGracePeriod). */
export const ENDPOINT_STOP_GRACE_PERIOD_MS = 5 * 60_000;

export const DEVICE_HEALTHY = 'Healthy';

/** Go's %q of a string: double-quoted, with Go's escapes for the characters a name can hold. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

export interface RegisterRequestFacts {
  version: string;
  resourceName: string;
}

/** Register's checks, in Go's order: null when the request may connect, else the error text it answers. */
export function registrationRefusal(request: RegisterRequestFacts): string | null {
  if (!(SUPPORTED_DEVICE_PLUGIN_VERSIONS as readonly string[]).includes(request.version)) {
    const supported = `[${SUPPORTED_DEVICE_PLUGIN_VERSIONS.map(goQuote).join(' ')}]`;
    return `requested API version ${goQuote(request.version)} is not supported by kubelet. Supported versions are ${supported}`;
  }
  if (!isExtendedResourceName(request.resourceName)) return `the ResourceName ${goQuote(request.resourceName)} is invalid`;
  return null;
}

/** Go's errFailedToDialDevicePlugin, before the dial's own error. */
export const FAILED_TO_DIAL_DEVICE_PLUGIN = 'failed to dial device plugin:';

/**
 * The plugin's endpoint as a path: the name it registered, in the device-plugins directory (Go:
 * filepath.Join, so an endpoint with `..` or a leading `/` is refused here rather than followed).
 */
export function pluginSocketPath(dir: string, endpoint: string): string | null {
  if (endpoint === '' || endpoint.startsWith('/') || endpoint.split('/').includes('..')) return null;
  return `${dir.replace(/\/+$/, '')}/${endpoint}`;
}
