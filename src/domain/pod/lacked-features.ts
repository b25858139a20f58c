/**
 * Pod fields of v1.35 features kubelet-ts does not have (here). The v1.35 API server accepts them
 * (their gates are on there), and a kubelet that ran such a pod anyway would drop what the user
 * asked for without a word: a container started without its claimed device, or given no volume.
 * So the pod is refused at admission, naming each field and its feature. DRA claims are refused only
 * standalone, where no API server holds the claims. Pure.
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

/**
 * Every field of a lacked feature the pod sets, in field order; empty for a pod kubelet-ts can run
 * as asked. `dynamicResources`: claims can be prepared here (cluster mode).
 */
export function lackedPodFields(pod: Pod, opts: { dynamicResources?: boolean } = {}): LackedField[] {
  const { spec } = pod;
  const lacksDra = opts.dynamicResources !== true;
  return [
    ...(lacksDra && (spec.resourceClaims ?? []).length > 0 ? [{ field: 'spec.resourceClaims', feature: 'DynamicResourceAllocation' }] : []),
    ...(spec.volumes ?? []).flatMap((v, i) => (v['image'] !== undefined ? [{ field: `spec.volumes[${i}].image`, feature: 'ImageVolume' }] : [])),
    ...(lacksDra ? containerFields('initContainers', spec.initContainers ?? []) : []),
    ...(lacksDra ? containerFields('containers', spec.containers) : []),
    ...(lacksDra ? containerFields('ephemeralContainers', spec.ephemeralContainers ?? []) : []),
  ];
}

/** The refusal's message: every field, with its feature. */
export function lackedFeaturesMessage(fields: readonly LackedField[]): string {
  const list = fields.map((f) => `${f.field} (${f.feature})`).join(', ');
  return `kubelet-ts does not support yet what this pod asks for: ${list}`;
}
