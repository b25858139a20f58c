/**
 * Static pods may not reference API objects (Go: pkg/api/pod HasAPIObjectReference, applied by
 * tryDecodeSinglePod / tryDecodePodList under the PreventStaticPodAPIReferences gate, beta and on
 * since 1.34, the gate removed and the check unconditional in 1.37). A static pod runs without the
 * API server, so a secret, config map, service account or claim it names could never be resolved.
 *
 * Returns the plural resource referenced first (Go's order: service account, secrets, config maps,
 * resource claims, then volume by volume), or null. An unknown volume type is reported like Go:
 * such a pod cannot be judged, so it is refused.
 * We always apply the check (no gate).
 */
import type { Container, Pod, Volume } from '../pod/types.js';
import { isPlainObject as isObject } from '../config/decode.js';

export type ApiReferenceCheck = { resource: string } | { error: string } | null;

/** Volume sources that need no API object (Go's `continue` list; emptyDir and hostPath among them). */
const SELF_CONTAINED_VOLUMES = new Set([
  'awsElasticBlockStore', 'azureDisk', 'cephfs', 'cinder', 'downwardAPI', 'emptyDir', 'fc', 'flexVolume', 'flocker',
  'gcePersistentDisk', 'gitRepo', 'hostPath', 'image', 'iscsi', 'nfs', 'photonPersistentDisk', 'portworxVolume',
  'quobyte', 'rbd', 'scaleIO', 'storageos', 'vsphereVolume',
]);

/** Volume sources that do, with Go's wording of what they reference. */
const REFERENCING_VOLUMES: Record<string, string> = {
  configMap: 'configmaps (via configmap volumes)',
  secret: 'secrets (via secret volumes)',
  csi: 'csidrivers (via CSI volumes)',
  glusterfs: 'endpoints (via glusterFS volumes)',
  persistentVolumeClaim: 'persistentvolumeclaims',
  ephemeral: 'persistentvolumeclaims (via ephemeral volumes)',
  azureFile: 'secrets (via azureFile volumes)',
};

const PROJECTED_SOURCES: Record<string, string | null> = {
  configMap: 'configmaps (via projected volumes)',
  secret: 'secrets (via projected volumes)',
  serviceAccountToken: 'serviceaccounts (via projected volumes)',
  clusterTrustBundle: 'clustertrustbundles',
  podCertificate: 'podcertificates',
  downwardAPI: null,
};

/** Volume sources whose `secretRef` (or CSI's nodePublishSecretRef) names a secret (Go's VisitPodSecretNames). */
const VOLUME_SECRET_REFS: Record<string, string> = {
  cephfs: 'secretRef', cinder: 'secretRef', flexVolume: 'secretRef', rbd: 'secretRef', scaleIO: 'secretRef',
  iscsi: 'secretRef', storageos: 'secretRef', csi: 'nodePublishSecretRef',
};

export function staticPodApiReference(pod: Pod): ApiReferenceCheck {
  const spec = pod.spec as Pod['spec'] & { imagePullSecrets?: unknown[]; resourceClaims?: unknown[] };
  if (spec.serviceAccountName) return { resource: 'serviceaccounts' };
  const containers: Container[] = [...(spec.initContainers ?? []), ...spec.containers];
  const volumes: Volume[] = spec.volumes ?? [];
  if (referencesSecrets(spec.imagePullSecrets ?? [], containers, volumes)) return { resource: 'secrets' };
  if (referencesConfigMaps(containers, volumes)) return { resource: 'configmaps' };
  if ((spec.resourceClaims ?? []).length > 0) return { resource: 'resourceclaims' };
  for (const volume of volumes) {
    const source = Object.keys(volume).find((key) => key !== 'name');
    if (source === undefined) continue; // defaulted to emptyDir before this check
    if (SELF_CONTAINED_VOLUMES.has(source)) continue;
    const referenced = REFERENCING_VOLUMES[source];
    if (referenced) return { resource: referenced };
    if (source === 'projected') {
      const sources = (volume['projected'] as { sources?: unknown[] } | undefined)?.sources ?? [];
      for (const projection of sources) {
        const kind = isObject(projection) ? Object.keys(projection)[0] : undefined;
        if (kind === undefined || !(kind in PROJECTED_SOURCES)) return { error: `unknown source for projected volume ${JSON.stringify(volume.name)}` };
        const resource = PROJECTED_SOURCES[kind];
        if (resource) return { resource };
      }
      continue;
    }
    return { error: `unknown volume type for volume  ${JSON.stringify(volume.name)}` };
  }
  return null;
}

function referencesSecrets(imagePullSecrets: unknown[], containers: Container[], volumes: Volume[]): boolean {
  if (imagePullSecrets.length > 0) return true;
  for (const c of containers) {
    if ((c.envFrom ?? []).some((e) => e.secretRef)) return true;
    if ((c.env ?? []).some((e) => e.valueFrom?.secretKeyRef)) return true;
  }
  for (const volume of volumes) {
    if (volume['secret'] || volume['azureFile']) return true;
    for (const [source, refKey] of Object.entries(VOLUME_SECRET_REFS)) {
      const config = volume[source];
      if (isObject(config) && config[refKey]) return true;
    }
    if (projectedSources(volume).some((s) => s['secret'])) return true;
  }
  return false;
}

function referencesConfigMaps(containers: Container[], volumes: Volume[]): boolean {
  for (const c of containers) {
    if ((c.envFrom ?? []).some((e) => e.configMapRef)) return true;
    if ((c.env ?? []).some((e) => e.valueFrom?.configMapKeyRef)) return true;
  }
  return volumes.some((v) => v['configMap'] || projectedSources(v).some((s) => s['configMap']));
}

function projectedSources(volume: Volume): Record<string, unknown>[] {
  const sources = (volume['projected'] as { sources?: unknown[] } | undefined)?.sources ?? [];
  return sources.filter(isObject);
}
