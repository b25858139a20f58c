/**
 * What the kubelet itself needs of a pod before it runs anything for it: a uid and volume and
 * container names that can each name one directory and one actor, none used twice. Validation of
 * the pod (the API server's, or ours for static pods) refuses such pods first; this check holds
 * when a source did not validate, so that a duplicate name becomes the pod's own failure, and not
 * two actors under one id (which XState refuses by throwing) or two volumes in one directory.
 */
import { rejectedPodStatus, type AdmissionResult } from './admission.js';
import { segmentProblem } from './pod-paths.js';
import type { Pod, PodStatus } from './types.js';

/** The reason of a pod the kubelet refuses for its uid or names. */
export const REASON_INVALID_POD_SPEC = 'InvalidPodSpec';

/** A name and the field it is at (`spec.volumes[1].name`). */
interface NamedField { field: string; name: string }

const fieldsOf = (path: string, items: readonly { name: string }[]): NamedField[] => items.map((item, i) => ({ field: `${path}[${i}].name`, name: item.name }));

/** `Invalid value` for a name that is no path segment, `Duplicate value` for one seen before in the list. */
function nameProblems(names: readonly NamedField[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const { field, name } of names) {
    const problem = segmentProblem(name);
    if (problem !== null) problems.push(`${field}: Invalid value: ${JSON.stringify(name)}: ${problem}`);
    else if (seen.has(name)) problems.push(`${field}: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
  }
  return problems;
}

/** Every problem with the pod's uid and names, in field order; empty when there is none. */
export function podIdentityProblems(pod: Pod): string[] {
  const uid = pod.metadata.uid ?? '';
  const uidProblem = segmentProblem(uid);
  return [
    ...(uidProblem === null ? [] : [`metadata.uid: Invalid value: ${JSON.stringify(uid)}: ${uidProblem}`]),
    ...nameProblems(fieldsOf('spec.volumes', pod.spec.volumes ?? [])),
    // One namespace for init and app containers, as Go's validation has it.
    ...nameProblems([...fieldsOf('spec.initContainers', pod.spec.initContainers ?? []), ...fieldsOf('spec.containers', pod.spec.containers)]),
  ];
}

/** The pod refused, naming every problem, or admitted as far as its uid and names go. */
export function admitPodIdentity(pod: Pod): AdmissionResult {
  const problems = podIdentityProblems(pod);
  if (problems.length === 0) return { admit: true };
  return { admit: false, reason: REASON_INVALID_POD_SPEC, message: `the kubelet cannot run this pod: ${problems.join(', ')}` };
}

/** The reason of a pod failed because the kubelet's own worker for it threw. */
export const REASON_POD_ACTOR_FAILED = 'KubeletWorkerFailed';

/** The status of a pod whose worker threw: Failed for good, naming the error; its containers are being stopped. */
export function crashedPodStatus(pod: Pod, message: string): PodStatus {
  return rejectedPodStatus(pod, { reason: REASON_POD_ACTOR_FAILED, message: `the kubelet failed to run this pod and stops its containers: ${message}` });
}
