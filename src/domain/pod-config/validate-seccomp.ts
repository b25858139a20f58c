/**
 * Seccomp in Go's ValidatePodCreate: the seccompProfile fields of the pod and of each container
 * (validateSeccompProfileField), the deprecated seccomp annotations (ValidateSeccompPodAnnotations)
 * and, where a field and its annotation are both set, their agreement
 * (validateSeccompAnnotationsAndFields). A Localhost profile names a file under
 * `<root-dir>/seccomp`, so its name must be a relative path without `..`.
 *
 * Stricter than Go: an empty localhostProfile is refused as a missing one (Go admits it and runs
 * the container unconfined).
 */
import type { Pod, SeccompProfile } from '../pod/types.js';
import { containersWithPaths } from './container-paths.js';
import { forbidden, invalid, invalidShown, notSupported, required } from './field-errors.js';
import { localDescendingPathErrors } from './local-paths.js';

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const LOCALHOST_PREFIX = 'localhost/';
const ANNOTATION_RUNTIME_DEFAULT = ['runtime/default', 'docker/default'];
const ANNOTATION_UNCONFINED = 'unconfined';
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** Go prints the struct with %#v; its pointer addresses are left out here. */
const shownProfile = (p: SeccompProfile): string =>
  `core.SeccompProfile{Type:${JSON.stringify(p.type)}, LocalhostProfile:${p.localhostProfile === undefined ? 'nil' : JSON.stringify(p.localhostProfile)}}`;

/** validateSeccompProfileField, at `path` (`….securityContext.seccompProfile`). */
export function seccompProfileErrors(path: string, profile: SeccompProfile | undefined): string[] {
  if (profile === undefined) return [];
  const errors: string[] = [];
  const type: string = profile.type ?? '';
  if (type === '') errors.push(required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!PROFILE_TYPES.includes(type)) errors.push(notSupported(`${path}.type`, type, PROFILE_TYPES));
  const name = profile.localhostProfile;
  if (type === 'Localhost') {
    if (!name) errors.push(required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    else errors.push(...localDescendingPathErrors(`${path}.localhostProfile`, name));
  } else if (name !== undefined) {
    errors.push(invalidShown(`${path}.localhostProfile`, shownProfile(profile), 'can only be set when seccomp type is Localhost'));
  }
  return errors;
}

/** ValidateSeccompProfile: one annotation's value. Go's path joins the key as a child (`metadata.annotations.<key>`). */
function annotationValueErrors(path: string, value: string): string[] {
  if (ANNOTATION_RUNTIME_DEFAULT.includes(value) || value === ANNOTATION_UNCONFINED) return [];
  if (value.startsWith(LOCALHOST_PREFIX)) return localDescendingPathErrors(path, value.slice(LOCALHOST_PREFIX.length));
  return [invalid(path, value, 'must be a valid seccomp profile')];
}

/** ValidateSeccompPodAnnotations: the pod's annotation, then every container's (in key order; Go's is a map's). */
export function seccompAnnotationErrors(annotations: Record<string, string> | undefined): string[] {
  const entries = Object.entries(annotations ?? {});
  const pod = entries.filter(([key]) => key === SECCOMP_POD_ANNOTATION);
  const containers = entries.filter(([key]) => key.startsWith(SECCOMP_CONTAINER_ANNOTATION_PREFIX)).sort(([a], [b]) => (a < b ? -1 : 1));
  return [...pod, ...containers].flatMap(([key, value]) => annotationValueErrors(`metadata.annotations.${key}`, value));
}

/** validateSeccompAnnotationsAndFieldsMatch: undefined when they agree (an unknown type is reported elsewhere). */
function mismatchError(path: string, annotation: string, profile: SeccompProfile): string | undefined {
  const typeMismatch = forbidden(`${path}.type`, 'seccomp type in annotation and field must match');
  switch (profile.type) {
    case 'Unconfined':
      return annotation === ANNOTATION_UNCONFINED ? undefined : typeMismatch;
    case 'RuntimeDefault':
      return ANNOTATION_RUNTIME_DEFAULT.includes(annotation) ? undefined : typeMismatch;
    case 'Localhost':
      if (!annotation.startsWith(LOCALHOST_PREFIX)) return typeMismatch;
      return annotation.slice(LOCALHOST_PREFIX.length) === profile.localhostProfile
        ? undefined
        : forbidden(`${path}.localhostProfile`, 'seccomp profile in annotation and field must match');
    default:
      return undefined;
  }
}

/** validateSeccompAnnotationsAndFields: a field and the annotation for the same pod or container must say the same. */
export function seccompAgreementErrors(pod: Pod): string[] {
  const annotations = pod.metadata.annotations ?? {};
  const errors: string[] = [];
  const check = (path: string, key: string, profile: SeccompProfile | undefined) => {
    const annotation = annotations[key];
    if (profile === undefined || annotation === undefined) return;
    const error = mismatchError(path, annotation, profile);
    if (error) errors.push(error);
  };
  check('spec.securityContext.seccompProfile', SECCOMP_POD_ANNOTATION, pod.spec.securityContext?.seccompProfile);
  for (const [path, container] of containersWithPaths(pod.spec)) {
    check(`${path}.securityContext.seccompProfile`, SECCOMP_CONTAINER_ANNOTATION_PREFIX + container.name, container.securityContext?.seccompProfile);
  }
  return errors;
}
