/**
 * Pod fields of v1.35 features kubelet-ts does not have yet. The v1.35 API server accepts them (their
 * gates are on there), and a kubelet that ran such a pod anyway would drop what the user asked for
 * without a word: a container started without its claimed device, or given no volume. So the pod is refused at admission, naming each field and
 * its feature; Go's kubelet v1.35 runs these pods (DIFFERENCES.md). Pure.
 */
import type { Container, Pod } from './types.js';

export const REASON_POD_FEATURE_NOT_SUPPORTED = 'PodFeatureNotSupported';

/** One field the pod sets, and the feature (gate) it belongs to. */
export interface LackedField { field: string; feature: string }

function containerFields(kind: string, containers: readonly Container[]): LackedField[] {
  const found: LackedField[] = [];
  containers.forEach((c, i) => {
    if ((c.resources?.claims ?? []).length > 0) found.push({ field: `spec.${kind}[${i}].resources.claims`, feature: 'DynamicResourceAllocation' });
  });
  return found;
}

/** Every field of a lacked feature the pod sets, in field order; empty for a pod kubelet-ts can run as asked. */
export function lackedPodFields(pod: Pod): LackedField[] {
  const { spec } = pod;
  return [
    ...((spec.resourceClaims ?? []).length > 0 ? [{ field: 'spec.resourceClaims', feature: 'DynamicResourceAllocation' }] : []),
    ...(spec.volumes ?? []).flatMap((v, i) => (v['image'] !== undefined ? [{ field: `spec.volumes[${i}].image`, feature: 'ImageVolume' }] : [])),
    ...containerFields('initContainers', spec.initContainers ?? []),
    ...containerFields('containers', spec.containers),
    ...containerFields('ephemeralContainers', spec.ephemeralContainers ?? []),
  ];
}

/** The refusal's message: every field, with its feature. */
export function lackedFeaturesMessage(fields: readonly LackedField[]): string {
  const list = fields.map((f) => `${f.field} (${f.feature})`).join(', ');
  return `kubelet-ts does not support yet what this pod asks for: ${list}`;
}
