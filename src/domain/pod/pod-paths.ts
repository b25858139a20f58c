/**
 * Every path the kubelet makes for a pod under --root-dir (Go: kubelet_getters.go getPodsDir,
 * getPodDir, getPodVolumesDir, getPodVolumeDir, getPodContainerDir, getEtcHostsPath) and under the
 * pod logs directory (BuildPodLogsDirectory, BuildContainerLogsPath), built from
 * parts and never by pasting strings: a pod uid, a volume or a container name comes from a pod spec,
 * and `..` or a `/` in one would name a directory of the node that the kubelet then writes, chmods
 * and deletes. Each part must be one path segment, and the result must lie below the root, or the
 * path is refused (KLT_ERR_PATH_UNSAFE). Validation of pod specs refuses such names first; this is
 * the check that holds when a source skipped it.
 */
import { cleanPath } from '../runtime/absolute-path.js';
import { KubeletError } from '../errors.js';
import type { VolumePluginName } from '../volumes/pod-volumes.js';

/** NAME_MAX of Linux file systems: a longer segment could never be made. */
const maxSegmentBytes = 255;
const utf8 = new TextEncoder();

/** Why `value` is not one path segment, or null when it is. */
export function segmentProblem(value: string): string | null {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..') return `is "${value}"`;
  if (value.includes('/')) return 'contains "/"';
  if (value.includes('\0')) return 'contains a NUL byte';
  // A UTF-16 code unit is at most 3 bytes of UTF-8: only a long name needs encoding to be measured.
  if (value.length * 3 > maxSegmentBytes && utf8.encode(value).length > maxSegmentBytes) return `is longer than ${maxSegmentBytes} bytes`;
  return null;
}

/** `value` itself when it is one path segment; else KLT_ERR_PATH_UNSAFE naming what it is. */
export function safeSegment(what: string, value: string): string {
  const problem = segmentProblem(value);
  if (problem !== null) throw new KubeletError('KLT_ERR_PATH_UNSAFE', `${what} ${JSON.stringify(value)} ${problem}: it cannot name a directory under the kubelet's root`);
  return value;
}

/** Whether `path` is `base` itself or below it, both cleaned (no symlink is looked at). */
export function isSameOrBelowPath(path: string, base: string): boolean {
  return sameOrBelowCleaned(cleanPath(path), cleanPath(base));
}

function sameOrBelowCleaned(p: string, b: string): boolean {
  if (b === '.') return !p.startsWith('/') && p !== '..' && !p.startsWith('../');
  return p === b || p.startsWith(b === '/' ? '/' : `${b}/`);
}

/** Whether `path` is strictly below `base`, both cleaned. */
export function isBelowPath(path: string, base: string): boolean {
  return belowCleaned(cleanPath(path), cleanPath(base));
}

function belowCleaned(p: string, b: string): boolean {
  return p !== b && sameOrBelowCleaned(p, b);
}

/** `base` joined with already checked segments, refused unless the result is strictly below `root`. */
function below(root: string, base: string, segments: readonly string[]): string {
  const path = cleanPath([base, ...segments].join('/'));
  const cleanRoot = cleanPath(root);
  if (!belowCleaned(path, cleanRoot)) throw new KubeletError('KLT_ERR_PATH_UNSAFE', `${JSON.stringify(path)} is not below the kubelet's root ${JSON.stringify(cleanRoot)}`);
  return path;
}

/** `<rootDir>/pods`. */
export function podsDirectory(rootDir: string): string {
  return below(rootDir, rootDir, ['pods']);
}

/** `<rootDir>/pods/<uid>`. */
export function podDirectory(rootDir: string, podUid: string): string {
  return below(rootDir, podsDirectory(rootDir), [safeSegment('pod uid', podUid)]);
}

/** `<podDir>/volumes`. */
export function podVolumesDirectory(rootDir: string, podUid: string): string {
  return below(rootDir, podDirectory(rootDir, podUid), ['volumes']);
}

/** The plugin name as a directory name: `kubernetes.io~configmap` (EscapeQualifiedName). */
export function escapedPluginName(plugin: VolumePluginName): string {
  return plugin.replaceAll('/', '~');
}

/** `<podDir>/volumes/<escaped plugin>`. */
export function podPluginDirectory(rootDir: string, podUid: string, plugin: VolumePluginName): string {
  return below(rootDir, podVolumesDirectory(rootDir, podUid), [safeSegment('volume plugin', escapedPluginName(plugin))]);
}

/** `<podDir>/volumes/<escaped plugin>/<volume name>` (getPodVolumeDir). */
export function podVolumeDirectory(rootDir: string, podUid: string, plugin: VolumePluginName, volumeName: string): string {
  return below(rootDir, podPluginDirectory(rootDir, podUid, plugin), [safeSegment('volume name', volumeName)]);
}

/** `<podDir>/volumeDevices/<escaped plugin>/<volume name>` (getPodVolumeDeviceDir, then the map's name): a raw block volume's symlink. */
export function podVolumeDevicePath(rootDir: string, podUid: string, plugin: VolumePluginName, volumeName: string): string {
  return below(rootDir, podDirectory(rootDir, podUid), ['volumeDevices', safeSegment('volume plugin', escapedPluginName(plugin)), safeSegment('volume name', volumeName)]);
}

/** `<podDir>/containers/<container name>` (getPodContainerDir), where termination-message files are made. */
export function podContainerDirectory(rootDir: string, podUid: string, containerName: string): string {
  return below(rootDir, podDirectory(rootDir, podUid), ['containers', safeSegment('container name', containerName)]);
}

/** `<podLogsDir>/<namespace>_<name>_<uid>` (BuildPodLogsDirectory): the pod's logs, which the runtime writes. */
export function podLogDirectory(podLogsDir: string, namespace: string, name: string, podUid: string): string {
  return below(podLogsDir, podLogsDir, [safeSegment('pod log directory', `${namespace}_${name}_${podUid}`)]);
}

/** `<podLogDir>/<container name>`: the container's logs, one file per restart. */
export function containerLogDirectory(podLogDir: string, containerName: string): string {
  return below(podLogDir, podLogDir, [safeSegment('container name', containerName)]);
}

/** `<container name>/<restart count>.log`, relative to the pod's log directory (BuildContainerLogsPath). */
export function containerLogPath(containerName: string, restartCount: number): string {
  return `${safeSegment('container name', containerName)}/${restartCount}.log`;
}

/** `<podDir>/etc-hosts` (getEtcHostsPath). */
export function podEtcHostsPath(rootDir: string, podUid: string): string {
  return below(rootDir, podDirectory(rootDir, podUid), ['etc-hosts']);
}
