/**
 * Go's ValidateAppArmorPodAnnotations: each `container.apparmor.security.beta.kubernetes.io/<name>`
 * annotation must name a container of the pod (of any kind) and hold a profile of a known form
 * (empty, `runtime/default`, `unconfined` or `localhost/<profile>`). Keys in order (Go's are a map's).
 */
import type { Pod } from '../pod/types.js';
import { APPARMOR_ANNOTATION_PREFIX, profileFormatError } from '../runtime/apparmor.js';
import { containersWithPaths } from './container-paths.js';
import { invalid } from './field-errors.js';

export function appArmorAnnotationErrors(pod: Pod): string[] {
  const names = new Set(containersWithPaths(pod.spec).map(([, c]) => c.name));
  const errors: string[] = [];
  const keys = Object.keys(pod.metadata.annotations ?? {}).filter((key) => key.startsWith(APPARMOR_ANNOTATION_PREFIX)).sort();
  for (const key of keys) {
    const profile = pod.metadata.annotations![key]!;
    const container = key.slice(APPARMOR_ANNOTATION_PREFIX.length);
    const path = `metadata.annotations[${key}]`;
    if (!names.has(container)) errors.push(invalid(path, container, 'container not found'));
    const formError = profileFormatError(profile);
    if (formError) errors.push(invalid(path, profile, formError));
  }
  return errors;
}
