/**
 * A pod's claim to its PV, read through the API client (Go: the desired state of world populator's
 * createVolumeSpec, then the operation generator's node affinity check). The decisions are
 * domain/volumes/claims.ts; this does the reads and turns each refusal into the error the volume
 * manager tells apart: KLT_ERR_VOLUME_PROCESS for the populator's errors (the pod's sync fails with
 * them at once), KLT_ERR_VOLUME_OPERATION for an operation's whole event text.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import {
  claimProcessingError, claimRefusal, ephemeralClaimRefusal, nodeAffinityRefusal, persistentVolumeMount, persistentVolumeRefusal, volumeModeRefusal,
  type ClaimObject, type PersistentVolumeMount, type PersistentVolumeObject, type PodVolumeClaim,
} from '../../domain/volumes/claims.js';
import { podVolumeUses } from '../../domain/volumes/pod-volumes.js';
import type { Volume } from '../../domain/volumes/sources.js';
import type { ClaimApi } from '../../ports/apiserver.js';
import { volumeOperationError } from './local-volume.js';

export interface ClaimResolverDeps {
  /** Absent standalone: every claim is refused. */
  api?: ClaimApi;
  nodeName?: string;
}

const processing = (message: string) => new KubeletError('KLT_ERR_VOLUME_PROCESS', message);

/** client-go's text for a failed GET: the API's "<resource> \"<name>\" not found" on 404, else the error's own. */
async function fetched<T>(read: Promise<T | undefined>, resource: string, name: string): Promise<T | string> {
  try {
    const object = await read;
    return object === undefined ? `${resource} "${name}" not found` : object;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The claim's PV, checked as the populator checks it; rejects with KLT_ERR_VOLUME_PROCESS. */
export async function resolveClaim(deps: ClaimResolverDeps, pod: Pod, volume: Volume, claim: PodVolumeClaim): Promise<PersistentVolumeMount> {
  const namespace = pod.metadata.namespace ?? 'default';
  const fail = (reason: string) => processing(claimProcessingError(namespace, claim.claimName, reason));
  if (!deps.api) throw fail('the volume needs an API server, and the kubelet is in standalone mode');
  const pvc = await fetched(deps.api.getPersistentVolumeClaim(namespace, claim.claimName), 'persistentvolumeclaims', claim.claimName);
  if (typeof pvc === 'string') throw fail(`failed to fetch PVC from API server: ${pvc}`);
  const claimObject = pvc as ClaimObject;
  const refusal = claimRefusal(claimObject);
  if (refusal !== null) throw fail(refusal);
  if (claim.ephemeral) {
    const notOwner = ephemeralClaimRefusal(pod, claimObject);
    if (notOwner !== null) throw processing(notOwner);
  }
  const pvName = claimObject.spec?.volumeName ?? '';
  const pv = await fetched(deps.api.getPersistentVolume(pvName), 'persistentvolumes', pvName);
  if (typeof pv === 'string') throw fail(`failed to fetch PV ${pvName} from API server: ${pv}`);
  const pvObject = pv as PersistentVolumeObject;
  const wrongClaim = persistentVolumeRefusal(pvName, pvObject, claimObject.metadata?.uid ?? '');
  if (wrongClaim !== null) throw fail(wrongClaim);
  const uses = podVolumeUses(pod);
  const mode = volumeModeRefusal(volume.name, claimObject, pvObject, { mounted: uses.mounts.has(volume.name), mapped: uses.devices.has(volume.name) });
  if (mode !== null) throw processing(mode);
  const mount = persistentVolumeMount(claim, pvName, pvObject);
  if (typeof mount === 'string') throw processing(mount);
  await checkNodeAffinity(deps, pvName, pvObject);
  return mount;
}

/** The mount operation's node affinity check, against the Node's labels as the API server has them. */
async function checkNodeAffinity(deps: ClaimResolverDeps, pvName: string, pv: PersistentVolumeObject): Promise<void> {
  if (!pv.spec?.nodeAffinity?.required) return;
  let labels: Record<string, string>;
  try {
    if (!deps.api || !deps.nodeName) throw new Error('the node name is not known');
    labels = (await deps.api.getNode(deps.nodeName)).metadata?.labels ?? {};
  } catch (error) {
    throw volumeOperationError('MountVolume.NodeAffinity check', pvName, (error as Error).message);
  }
  const refusal = nodeAffinityRefusal(pv, labels);
  if (refusal !== null) throw volumeOperationError('MountVolume.NodeAffinity check', pvName, refusal);
}
