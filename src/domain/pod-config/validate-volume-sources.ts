/**
 * The API server's rules for one volume's source (pkg/apis/core/validation validateVolumeSource and
 * the validate*VolumeSource functions), for the sources kubelet-ts mounts and gitRepo: what keeps a
 * volume's content inside its directory (item paths), a hostPath free of `..`, and modes and media
 * the plugins know. Field paths and messages are Go's, including where Go names an item's error
 * under its list (`downwardAPI.path`, `projected.path`). Sources kubelet-ts has no plugin for are
 * only counted (exactly one per volume); mounting one fails with its own error.
 */
import { parseQuantity } from '../resources/quantity.js';
import type { DownwardAPIVolumeFile, KeyToPath, ProjectedVolumeSource, Volume } from '../volumes/sources.js';
import { forbidden, invalid, notSupported, required } from './field-errors.js';
import { localDescendingPathErrors, localNonReservedPathErrors, noBackstepErrors, nulErrors } from './local-paths.js';

/** Every source of core/v1 VolumeSource, in the order Go checks them (the second one found is the one refused). */
export const VOLUME_SOURCE_KEYS = [
  'emptyDir', 'hostPath', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'flocker', 'persistentVolumeClaim', 'rbd', 'cinder', 'cephfs', 'quobyte', 'downwardAPI', 'fc', 'flexVolume', 'configMap',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'projected', 'scaleIO',
  'csi', 'ephemeral', 'image',
] as const;

const FILE_MODE_MESSAGE = 'must be a number between 0 and 0777 (octal), both inclusive';
/** sets.List(supportedHostPathTypes): sorted. */
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const EMPTY_DIR_MEDIA = ['', 'HugePages', 'HugePages-<size>', 'Memory'];
const DOWNWARD_API_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const PROJECTION_KEYS = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];
/** Go's default for a projected token without expirationSeconds. */
const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

function modeErrors(field: string, mode: number | undefined): string[] {
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [invalid(field, mode, FILE_MODE_MESSAGE)] : [];
}

/** The sources a volume names, known ones only, in Go's order. */
export function volumeSources(volume: Volume): string[] {
  return VOLUME_SOURCE_KEYS.filter((key) => volume[key] !== undefined && volume[key] !== null);
}

/** validateVolumeSource: exactly one source, and that source's own rules. `path` is `spec.volumes[i]`. */
export function volumeSourceErrors(volume: Volume, path: string): string[] {
  const sources = volumeSources(volume);
  if (sources.length === 0) return [required(path, 'must specify a volume type')];
  return [
    ...sourceErrors(volume, sources[0]!, `${path}.${sources[0]!}`),
    ...sources.slice(1).map((extra) => forbidden(`${path}.${extra}`, 'may not specify more than 1 volume type')),
  ];
}

function sourceErrors(volume: Volume, source: string, path: string): string[] {
  switch (source) {
    case 'emptyDir': return emptyDirErrors(volume.emptyDir!, path);
    case 'hostPath': return hostPathErrors(volume.hostPath!, path);
    case 'gitRepo': return gitRepoErrors(volume['gitRepo'] as { repository?: string; directory?: string }, path);
    case 'secret': return keyedErrors(volume.secret!.secretName, volume.secret!, path, 'secretName');
    case 'configMap': return keyedErrors(volume.configMap!.name, volume.configMap!, path, 'name');
    case 'downwardAPI': return [
      ...modeErrors(`${path}.defaultMode`, volume.downwardAPI!.defaultMode),
      ...(volume.downwardAPI!.items ?? []).flatMap((file) => downwardApiFileErrors(file, path)),
    ];
    case 'projected': return projectedErrors(volume.projected!, path);
    default: return [];
  }
}

function emptyDirErrors(source: NonNullable<Volume['emptyDir']>, path: string): string[] {
  const errors: string[] = [];
  const medium = source.medium ?? '';
  if (!['', 'Memory', 'HugePages'].includes(medium) && !medium.startsWith('HugePages-')) {
    // Go takes any medium here and fails the mount; refused early, as the plugins know only these.
    errors.push(notSupported(`${path}.medium`, medium, EMPTY_DIR_MEDIA));
  }
  if (source.sizeLimit !== undefined) {
    try {
      if (parseQuantity(String(source.sizeLimit)).num < 0n) errors.push(forbidden(`${path}.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
    } catch (err) {
      errors.push(invalid(`${path}.sizeLimit`, source.sizeLimit, (err as Error).message));
    }
  }
  return errors;
}

/**
 * validateHostPathVolumeSource, and (differs from Go) an absolute path: a relative one would be
 * taken from the kubelet's working directory, and DirectoryOrCreate would make it there.
 */
function hostPathErrors(source: NonNullable<Volume['hostPath']>, path: string): string[] {
  if (!source.path) return [required(`${path}.path`)];
  const errors = source.path.startsWith('/') ? [] : [invalid(`${path}.path`, source.path, 'must be an absolute path')];
  errors.push(...noBackstepErrors(`${path}.path`, source.path), ...nulErrors(`${path}.path`, source.path));
  if (source.type !== undefined && !HOST_PATH_TYPES.includes(source.type)) errors.push(notSupported(`${path}.type`, source.type, HOST_PATH_TYPES));
  return errors;
}

function gitRepoErrors(source: { repository?: string; directory?: string }, path: string): string[] {
  return [
    ...(source.repository ? [] : [required(`${path}.repository`)]),
    ...localDescendingPathErrors(`${path}.directory`, source.directory ?? ''),
  ];
}

/** validateSecretVolumeSource and validateConfigMapVolumeSource: the object's name, the mode, the items. */
function keyedErrors(name: string | undefined, source: { items?: KeyToPath[]; defaultMode?: number }, path: string, nameField: string): string[] {
  return [
    ...(name ? [] : [required(`${path}.${nameField}`)]),
    ...modeErrors(`${path}.defaultMode`, source.defaultMode),
    ...(source.items ?? []).flatMap((item, i) => keyToPathErrors(item, `${path}.items[${i}]`)),
  ];
}

function keyToPathErrors(item: KeyToPath, path: string): string[] {
  return [
    ...(item.key ? [] : [required(`${path}.key`)]),
    ...(item.path ? [] : [required(`${path}.path`)]),
    ...localNonReservedPathErrors(`${path}.path`, item.path ?? ''),
    ...modeErrors(`${path}.mode`, item.mode),
  ];
}

/** validateDownwardAPIVolumeFile; Go names every item's errors under `path` (the source), not the item. */
function downwardApiFileErrors(file: DownwardAPIVolumeFile, path: string): string[] {
  const errors = [
    ...(file.path ? [] : [required(`${path}.path`)]),
    ...localNonReservedPathErrors(`${path}.path`, file.path ?? ''),
  ];
  if (file.fieldRef !== undefined) {
    errors.push(...fieldRefErrors(file.fieldRef.fieldPath, `${path}.fieldRef`));
    if (file.resourceFieldRef !== undefined) errors.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (file.resourceFieldRef !== undefined) {
    if (!file.resourceFieldRef.containerName) errors.push(required(`${path}.resourceFieldRef.containerName`));
    else if (!file.resourceFieldRef.resource) errors.push(required(`${path}.resourceFieldRef.resource`));
  } else {
    errors.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  return [...errors, ...modeErrors(`${path}.mode`, file.mode)];
}

/** validateObjectFieldSelector for a volume: the fields Go's volume can read, labels and annotations by key too. */
function fieldRefErrors(fieldPath: string | undefined, path: string): string[] {
  if (!fieldPath) return [required(`${path}.fieldPath`)];
  const subscripted = /^([^[]+)\['.*'\]$/.exec(fieldPath);
  if (subscripted) {
    const base = subscripted[1]!;
    return base === 'metadata.labels' || base === 'metadata.annotations' ? [] : [invalid(path, base, 'does not support subscript')];
  }
  return DOWNWARD_API_FIELD_PATHS.includes(fieldPath) ? [] : [notSupported(`${path}.fieldPath`, fieldPath, DOWNWARD_API_FIELD_PATHS)];
}

/** validateProjectedVolumeSource: one kind per source, item rules, and no path written twice. */
function projectedErrors(projected: ProjectedVolumeSource, path: string): string[] {
  const errors = modeErrors(`${path}.defaultMode`, projected.defaultMode);
  const paths = new Set<string>();
  const claim = (written: string, shown: unknown) => {
    if (paths.has(written)) errors.push(invalid(path, shown, 'conflicting duplicate paths'));
    paths.add(written);
  };
  (projected.sources ?? []).forEach((source, i) => {
    const at = `${path}.sources[${i}]`;
    const kinds = PROJECTION_KEYS.filter((key) => (source as Record<string, unknown>)[key] !== undefined);
    for (const [kind, keyed] of [['secret', source.secret], ['configMap', source.configMap]] as const) {
      if (keyed === undefined) continue;
      if (!keyed.name) errors.push(required(`${at}.${kind}.name`));
      (keyed.items ?? []).forEach((item, j) => {
        errors.push(...keyToPathErrors(item, `${at}.${kind}.items[${j}]`));
        if (item.path) claim(item.path, keyed.name ?? '');
      });
    }
    for (const file of source.downwardAPI?.items ?? []) {
      errors.push(...downwardApiFileErrors(file, `${at}.downwardAPI`));
      if (file.path) claim(file.path, file.path);
    }
    const token = source.serviceAccountToken;
    if (token !== undefined) {
      const seconds = token.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
      if (seconds < 600) errors.push(invalid(`${at}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) errors.push(invalid(`${at}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
      errors.push(...(token.path ? localNonReservedPathErrors(`${path}.path`, token.path) : [required(`${path}.path`)]));
    }
    if (kinds.length > 1) errors.push(forbidden(at, 'may not specify more than 1 volume type per source'));
  });
  return errors;
}
