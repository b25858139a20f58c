/**
 * What the plugin manager decides about a plugin's answer to GetInfo (Go: pluginmanager's
 * operation generator, pkg/volume/csi's RegistrationHandler.ValidatePlugin and the DRA plugin
 * manager's): which handler takes it, whether its versions are supported, and the messages Go sends
 * back and logs. The plugin's type and versions are printed brief: the messages are logged,
 * journaled and sent back.
 */
import { chooseDraService, DRA_PLUGIN_TYPE, draServicesRefusal, type ValidDraPlugin } from '../dra/plugin-services.js';
import { briefList, briefText } from '../text/brief-list.js';

/** pluginregistration's PluginInfo as GetInfo answers it. */
export interface PluginInfo {
  type: string;
  name: string;
  /** Where the plugin's own service listens; empty: the registration socket itself. */
  endpoint: string;
  supportedVersions: string[];
}

/** A plugin type the kubelet's plugin manager has a handler for here, with DRA_PLUGIN_TYPE (Go also has DevicePlugin). */
export const CSI_PLUGIN_TYPE = 'CSIPlugin';

/** A CSI plugin Go would go on to register: its endpoint resolved and its highest CSI version. */
export interface ValidCsiPlugin {
  name: string;
  endpoint: string;
  versions: string[];
  highestVersion: string;
}

export type PluginValidation = { ok: true; plugin: ValidCsiPlugin } | { ok: true; draPlugin: ValidDraPlugin } | { ok: false; message: string };

/** Go's log() prefix of pkg/volume/csi's messages. */
const csiLog = (message: string) => `kubernetes.io/csi: ${message}`;

/** A "generic" version (Go: utilversion.ParseGeneric): two or more dot-separated numbers, `v` allowed in front, anything after the numbers ignored. */
export function parseGenericVersion(text: string): number[] | null {
  const m = /^v?([0-9]+(?:\.[0-9]+)+)/.exec(text.trim());
  if (!m) return null;
  const parts = m[1]!.split('.');
  if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return null;
  return parts.map(Number);
}

function lessThan(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/**
 * The highest CSI version of the list the kubelet supports (Go: highestSupportedVersion): versions
 * above 1.x are skipped; the highest left must be a 1.x.
 */
export function highestSupportedVersion(versions: readonly string[]): { version: number[] } | { error: string } {
  if (versions.length === 0) return { error: csiLog('CSI driver reporting empty array for supported versions') };
  let highest: number[] | null = null;
  let parseError = '';
  for (const text of [...versions].reverse()) {
    const v = parseGenericVersion(text);
    if (!v) {
      parseError = `could not parse "${briefText(text)}" as version`;
      continue;
    }
    if (v[0]! > 1) continue;
    if (!highest || lessThan(highest, v)) highest = v;
  }
  if (!highest) return { error: `could not find a highest supported version from versions ([${briefList(versions)}]) reported by this driver: ${parseError || '<nil>'}` };
  if (highest[0] !== 1) return { error: `highest supported version reported by driver is ${highest.join('.')}, must be v1.x` };
  return { version: highest };
}

/**
 * Go's validateVersions: a version list the kubelet supports, and no driver of the same name
 * registered already with a version at least as high.
 */
function validateVersions(caller: string, name: string, versions: readonly string[], registeredVersion: string | undefined): { version: string } | { error: string } {
  if (versions.length === 0) return { error: csiLog(`${caller} for CSI driver "${name}" failed. Plugin returned an empty list for supported versions`) };
  const highest = highestSupportedVersion(versions);
  if ('error' in highest) return { error: csiLog(`${caller} for CSI driver "${name}" failed. None of the versions specified [${briefList(versions, (v) => `"${v}"`)}] are supported. err=${highest.error}`) };
  const registered = registeredVersion === undefined ? null : parseGenericVersion(registeredVersion);
  if (registered && !lessThan(registered, highest.version)) {
    return { error: csiLog(`${caller} for CSI driver "${name}" failed. Another driver with the same name is already registered with a higher supported version: "${registeredVersion}"`) };
  }
  return { version: highest.version.join('.') };
}

/** Go's ValidatePlugin refusal as the operation generator sends it back. */
const validationFailed = (error: string): PluginValidation => ({ ok: false, message: `RegisterPlugin error -- plugin validation failed with err: ${error}` });

/**
 * Go's operation generator from GetInfo's answer to ValidatePlugin: the type must have a handler
 * (CSIPlugin or DRAPlugin here), an empty endpoint means the registration socket, and the handler's
 * validation must pass. `registeredVersion`: for a CSI plugin, the highest version of a driver of
 * that name registered already (from another socket).
 */
export function validatePluginInfo(info: PluginInfo, socketPath: string, registeredVersion?: string): PluginValidation {
  if (info.type !== CSI_PLUGIN_TYPE && info.type !== DRA_PLUGIN_TYPE) {
    return { ok: false, message: `RegisterPlugin error -- no handler registered for plugin type: ${briefText(info.type)} at socket ${socketPath}` };
  }
  const endpoint = info.endpoint === '' ? socketPath : info.endpoint;
  // Go checks neither; an empty name would be a driver nothing can name, a relative endpoint one
  // found from the kubelet's working directory.
  const refused = info.name === '' ? 'the plugin gave an empty name' : !endpoint.startsWith('/') ? `endpoint "${endpoint}" is not an absolute path to a unix socket` : '';
  if (refused) return validationFailed(refused);
  if (info.type === DRA_PLUGIN_TYPE) {
    const chosen = chooseDraService(info.supportedVersions);
    if ('error' in chosen) return validationFailed(draServicesRefusal(info.name, endpoint, chosen.error));
    return { ok: true, draPlugin: { name: info.name, endpoint, service: chosen.service } };
  }
  const checked = validateVersions('ValidatePlugin', info.name, info.supportedVersions, registeredVersion);
  if ('error' in checked) return validationFailed(`validation failed for CSI Driver ${info.name} at endpoint ${endpoint}: ${checked.error}`);
  return { ok: true, plugin: { name: info.name, endpoint, versions: [...info.supportedVersions], highestVersion: checked.version } };
}

/** What Go tells a plugin whose registration (NodeGetInfo, the node's objects) failed. */
export const registrationFailedMessage = (error: string): string => `RegisterPlugin error -- plugin registration failed with err: ${error}`;
