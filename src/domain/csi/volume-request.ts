/**
 * What NodeStageVolume and NodePublishVolume are asked with, decided from the volume, the pod and
 * the driver's CSIDriver (Go: csi_mounter.go SetUpAt, podAttributes, supportsFSGroup and
 * csi_client.go's access mode mapping, v1.26 with its default feature gates).
 */
import type { Pod } from '../pod/types.js';
import type { CsiDriverPolicy } from './csi-driver.js';
import type { VolumeLifecycleMode } from './vol-data.js';
import { byCodeUnits } from '../text/code-unit-order.js';

export type CsiAccessMode = 'SINGLE_NODE_WRITER' | 'MULTI_NODE_READER_ONLY' | 'MULTI_NODE_MULTI_WRITER' | 'UNKNOWN';

/**
 * The CSI access mode of a PV: only its first access mode counts, ReadWriteOnce when it has none
 * (an inline volume). ReadWriteOncePod maps to SINGLE_NODE_WRITER, as v1.26 does with its
 * ReadWriteOncePod gate off.
 */
export function csiAccessMode(accessModes: readonly string[] | undefined): CsiAccessMode {
  switch (accessModes?.[0] ?? 'ReadWriteOnce') {
    case 'ReadWriteOnce': case 'ReadWriteOncePod': return 'SINGLE_NODE_WRITER';
    case 'ReadOnlyMany': return 'MULTI_NODE_READER_ONLY';
    case 'ReadWriteMany': return 'MULTI_NODE_MULTI_WRITER';
    default: return 'UNKNOWN';
  }
}

/** The volume_context keys the kubelet adds for a driver with podInfoOnMount. */
export const podInfoKeys = {
  name: 'csi.storage.k8s.io/pod.name',
  namespace: 'csi.storage.k8s.io/pod.namespace',
  uid: 'csi.storage.k8s.io/pod.uid',
  serviceAccountName: 'csi.storage.k8s.io/serviceAccount.name',
  ephemeral: 'csi.storage.k8s.io/ephemeral',
  serviceAccountTokens: 'csi.storage.k8s.io/serviceAccount.tokens',
} as const;

/**
 * NodePublishVolume's volume_context: the volume's attributes, then (with podInfoOnMount) the pod's
 * name, namespace, uid, service account and whether the volume is ephemeral, which win over an
 * attribute of the same key as Go's mergeMap lets them.
 */
export function publishVolumeContext(attributes: Record<string, string> | undefined, pod: Pod, policy: CsiDriverPolicy, mode: VolumeLifecycleMode): Record<string, string> {
  const context: Record<string, string> = { ...(attributes ?? {}) };
  if (!policy.podInfoOnMount) return context;
  context[podInfoKeys.name] = pod.metadata.name;
  context[podInfoKeys.namespace] = pod.metadata.namespace ?? 'default';
  context[podInfoKeys.uid] = pod.metadata.uid;
  context[podInfoKeys.serviceAccountName] = pod.spec.serviceAccountName ?? '';
  context[podInfoKeys.ephemeral] = String(mode === 'Ephemeral');
  return context;
}

/** The `serviceAccount.tokens` value: audience → {token, expirationTimestamp}, as Go marshals TokenRequestStatus. */
export function serviceAccountTokensValue(tokens: readonly { audience: string; token: string; expirationTimestamp: string }[]): string {
  const byAudience: Record<string, { token: string; expirationTimestamp: string }> = {};
  for (const t of [...tokens].sort((a, b) => byCodeUnits(a.audience, b.audience))) {
    byAudience[t.audience] = { token: t.token, expirationTimestamp: t.expirationTimestamp };
  }
  return JSON.stringify(byAudience);
}

/**
 * Whether the kubelet applies the pod's fsGroup to a published volume itself (Go's supportsFSGroup):
 * never without an fsGroup, on a read-only volume or with the None policy; always with File; with
 * ReadWriteOnceWithFSType only for an fsType and a PV whose access modes include ReadWriteOnce
 * (an inline volume, which has none, is mounted ReadWriteOnce and qualifies).
 */
export function appliesFsGroup(opts: { fsGroup: number | undefined; readOnly: boolean; policy: CsiDriverPolicy; fsType: string; accessModes: readonly string[] | undefined }): boolean {
  if (opts.fsGroup === undefined || opts.readOnly || opts.policy.fsGroupPolicy === 'None') return false;
  if (opts.policy.fsGroupPolicy === 'File') return true;
  if (opts.fsType === '') return false;
  if (opts.accessModes === undefined) return true;
  return opts.accessModes.includes('ReadWriteOnce');
}
