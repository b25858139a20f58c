/**
 * Which resource names the scheduler's arithmetic knows (k8s.io/kubernetes pkg/apis/core/v1/helper
 * and the scheduler's IsScalarResourceName). cpu, memory and ephemeral-storage are counted on their
 * own; the "scalar" resources (extended resources such as `example.com/gpu`, `hugepages-<size>`,
 * names in the `kubernetes.io/` domain, `attachable-volumes-*`) are counted by name; any other
 * name (an unprefixed one the API does not define) is not counted at all.
 */
import { qualifiedNameErrors } from '../config/label-syntax.js';

/** Unprefixed names, and names in the *kubernetes.io/ domain, are the API's own (IsNativeResource). */
function isNativeResourceName(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** A name outside the kubernetes.io domain, valid as a quota name (`requests.<name>`). */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResourceName(name) || name.startsWith('requests.')) return false;
  return qualifiedNameErrors(`requests.${name}`).length === 0;
}

export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || name.startsWith('hugepages-') || name.includes('kubernetes.io/') || name.startsWith('attachable-volumes-');
}
