/**
 * Every path the kubelet is given, made absolute once, at start, against the working directory it
 * was started in. Go never changes its working directory, so a relative --root-dir means the same
 * directory for its whole life; kubelet-ts hands paths to parts that do not share its working
 * directory (the embedded runtime's shims run in `/`, a CRI runtime in its own), so a path left
 * relative would be read from somewhere else. Pure: the caller gives the working directory.
 *
 * The device plugin directory follows the root directory unless --device-plugins-dir is given: a
 * kubelet with a root of its own never touches another kubelet's sockets. At Go's default root it is
 * Go's fixed /var/lib/kubelet/device-plugins (docs/reference/DIFFERENCES.md).
 */
import type { ParsedCommandLine } from './command-line.js';
import { getAtPath, setAtPath } from './merge.js';
import type { KubeletConfiguration, KubeletFlags } from './types.js';

/** The flags that name a file or directory. */
const PATH_FLAGS = [
  'kubeletConfigFile', 'kubeletDropinConfigDirectory', 'kubeconfig', 'bootstrapKubeconfig', 'certDirectory', 'cloudConfigFile',
  'rootDirectory', 'lockFilePath', 'imageCredentialProviderConfigPath', 'imageCredentialProviderBinDir', 'experimentalMounterPath',
  'eventLog', 'devicePluginsDir',
] as const satisfies ReadonlyArray<keyof KubeletFlags>;

/** The configuration's fields that name a file or directory (Go's KubeletConfigurationPathRefs). */
export const CONFIG_PATH_FIELDS = [
  'staticPodPath', 'authentication.x509.clientCAFile', 'tlsCertFile', 'tlsPrivateKeyFile', 'resolvConf', 'volumePluginDir', 'podLogsDir',
] as const;

/** The device plugin directory's name under the root directory. */
export const DEVICE_PLUGINS_SUBDIR = 'device-plugins';

/** `path` against `cwd` when it is relative; '' and absolute paths as they are. Only `.` and `..` segments are folded. */
export function absolutePath(path: string, cwd: string): string {
  if (path === '' || path.startsWith('/')) return path;
  const parts: string[] = [];
  for (const part of `${cwd}/${path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  const joined = `/${parts.join('/')}`;
  return path.endsWith('/') && joined !== '/' ? `${joined}/` : joined;
}

/** The command line with every path flag absolute, and the device plugin directory under the root unless given. */
export function withAbsoluteFlags(parsed: ParsedCommandLine, cwd: string): ParsedCommandLine {
  const flags: KubeletFlags = { ...parsed.flags };
  for (const name of PATH_FLAGS) flags[name] = absolutePath(flags[name], cwd);
  if (!parsed.given.includes('device-plugins-dir')) flags.devicePluginsDir = `${flags.rootDirectory.replace(/\/+$/, '')}/${DEVICE_PLUGINS_SUBDIR}`;
  return { ...parsed, flags };
}

/** The configuration with every path field absolute (a relative one left by a flag or a relative --config). */
export function withAbsoluteConfigPaths(config: KubeletConfiguration, cwd: string): KubeletConfiguration {
  const resolved = structuredClone(config);
  for (const field of CONFIG_PATH_FIELDS) {
    const value = getAtPath(resolved, field);
    // A string field named by its JSON path gets a string.
    if (typeof value === 'string') setAtPath(resolved as unknown as Record<string, unknown>, field, absolutePath(value, cwd)); // cast: a write by JSON path
  }
  return resolved;
}
