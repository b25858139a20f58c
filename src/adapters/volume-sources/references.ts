/**
 * The ConfigMaps and Secrets a pod refers to, by name in the pod's namespace: what the managers
 * watch (or cache) while the pod is registered. Go: pkg/api/v1/pod VisitPodConfigmapNames and
 * VisitPodSecretNames over every container (init, regular, ephemeral) and every volume; empty names
 * are skipped (skipEmptyNames). Transitive references (pod → PVC → PV → secret) are not followed.
 */
import { allContainers as containersOf } from '../../domain/pod/pod-containers.js';
import type { Pod } from '../../domain/pod/types.js';
import type { Volume } from '../../domain/volumes/sources.js';

/** What a PodSpec may carry beyond the fields kubelet-ts types. */
interface SpecExtras {
  imagePullSecrets?: { name?: string }[];
}

/** Volume sources of other plugins that name a Secret through `<source>.<field>.name` (Go's switch in VisitPodSecretNames). */
const SECRET_REF_FIELDS: Record<string, string> = {
  cephfs: 'secretRef', cinder: 'secretRef', flexVolume: 'secretRef', rbd: 'secretRef', scaleIO: 'secretRef',
  iscsi: 'secretRef', storageos: 'secretRef', csi: 'nodePublishSecretRef',
};


function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function add(names: Set<string>, name: unknown): void {
  if (typeof name === 'string' && name !== '') names.add(name);
}

export function configMapNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  for (const c of containersOf(pod)) {
    for (const from of c.envFrom ?? []) add(names, from.configMapRef?.name);
    for (const env of c.env ?? []) add(names, env.valueFrom?.configMapKeyRef?.name);
  }
  for (const volume of pod.spec.volumes ?? []) {
    add(names, volume.configMap?.name);
    for (const source of volume.projected?.sources ?? []) add(names, source.configMap?.name);
  }
  return names;
}

export function secretNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  for (const ref of (pod.spec as Pod['spec'] & SpecExtras).imagePullSecrets ?? []) add(names, ref.name);
  for (const c of containersOf(pod)) {
    for (const from of c.envFrom ?? []) add(names, from.secretRef?.name);
    for (const env of c.env ?? []) add(names, env.valueFrom?.secretKeyRef?.name);
  }
  for (const volume of pod.spec.volumes ?? []) volumeSecretNames(volume, names);
  return names;
}

function volumeSecretNames(volume: Volume, names: Set<string>): void {
  add(names, volume.secret?.secretName);
  for (const source of volume.projected?.sources ?? []) add(names, source.secret?.name);
  add(names, field(volume['azureFile'], 'secretName'));
  for (const [source, refField] of Object.entries(SECRET_REF_FIELDS)) add(names, field(field(volume[source], refField), 'name'));
}
