/**
 * A pod's volumes and its containers' volume mounts as the API server checks them
 * (pkg/apis/core/validation ValidateVolumes and ValidateVolumeMounts). A volume's name becomes a
 * directory name and part of an actor id, so it must be a DNS label, and unique; each volume has
 * exactly one source; a mount names a volume that passed, at a path no other mount of its container
 * uses. Called by validatePod.
 */
import type { Container, Pod } from '../pod/types.js';
import type { Volume } from '../volumes/sources.js';
import { validateVolumeMountSubPath } from '../runtime/subpath.js';
import { dnsLabelErrors, duplicate, forbidden, invalid, notFound, notSupported, required } from './field-errors.js';
import { nulErrors } from './local-paths.js';
import { volumeSourceErrors } from './validate-volume-sources.js';

/** sets.List of Go's supported mount propagations: sorted. */
const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];

export interface VolumesChecked {
  errors: string[];
  /** The volumes that passed, by name: only these can be mounted (Go's `vols`). */
  valid: Map<string, Volume>;
}

export function validateVolumes(volumes: readonly Volume[], path = 'spec.volumes'): VolumesChecked {
  const errors: string[] = [];
  const valid = new Map<string, Volume>();
  volumes.forEach((volume, i) => {
    const at = `${path}[${i}]`;
    const found = volumeSourceErrors(volume, at);
    if (!volume.name) found.push(required(`${at}.name`));
    else found.push(...dnsLabelErrors(`${at}.name`, volume.name));
    if (valid.has(volume.name)) found.push(duplicate(`${at}.name`, volume.name));
    if (found.length === 0) valid.set(volume.name, volume);
    errors.push(...found);
  });
  return { errors, valid };
}

/** ValidateVolumeMounts for one container; `path` is its `…volumeMounts`. */
export function validateVolumeMounts(container: Container, volumes: ReadonlyMap<string, Volume>, path: string): string[] {
  const errors: string[] = [];
  const mountPaths = new Set<string>();
  (container.volumeMounts ?? []).forEach((mount, i) => {
    const at = `${path}[${i}]`;
    if (!mount.name) errors.push(required(`${at}.name`));
    if (!volumes.has(mount.name)) errors.push(notFound(`${at}.name`, mount.name ?? ''));
    if (!mount.mountPath) errors.push(required(`${at}.mountPath`));
    else errors.push(...nulErrors(`${at}.mountPath`, mount.mountPath));
    if (mountPaths.has(mount.mountPath)) errors.push(invalid(`${at}.mountPath`, mount.mountPath, 'must be unique'));
    mountPaths.add(mount.mountPath);
    errors.push(...validateVolumeMountSubPath(mount, path, i));
    // Go names these under the list, as it does the subPath errors.
    const propagation = mount.mountPropagation;
    if (propagation !== undefined) {
      if (!MOUNT_PROPAGATIONS.includes(propagation)) errors.push(notSupported(`${path}.mountPropagation`, propagation, MOUNT_PROPAGATIONS));
      if (propagation === 'Bidirectional' && container.securityContext?.privileged !== true) {
        errors.push(forbidden(`${path}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
  });
  return errors;
}

/** The volumes, then every container's mounts, init containers first (Go's order). */
export function validatePodVolumes(pod: Pod): string[] {
  const { errors, valid } = validateVolumes(pod.spec.volumes ?? []);
  const groups = [['spec.initContainers', pod.spec.initContainers ?? []], ['spec.containers', pod.spec.containers]] as const;
  for (const [group, containers] of groups) {
    containers.forEach((container, i) => errors.push(...validateVolumeMounts(container, valid, `${group}[${i}].volumeMounts`)));
  }
  return errors;
}
