/**
 * More of Go's ValidatePodCreate for static pods: rules without which a pod that Go refuses would
 * run, with Go's field paths and messages. Called by validatePod.
 */
import { parseQuantity } from '../resources/quantity.js';
import type { Container, Pod, Probe, ResourceList } from '../pod/types.js';
import { dnsLabelErrors, forbidden, inclusiveRange, invalid } from './field-errors.js';
import { appArmorAnnotationErrors } from './validate-apparmor.js';
import { seccompAgreementErrors, seccompAnnotationErrors } from './validate-seccomp.js';
import { containerSecurityContextErrors, podSecurityContextErrors } from './validate-security-context.js';
import { hostProcessErrors, podOsErrors, windowsOptionsErrors } from './validate-windows.js';

/** Go's apimachinery TotalAnnotationSizeLimitB: keys and values together. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const NAME_PART_MESSAGE = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

export function validatePodCreateRules(pod: Pod): string[] {
  const errors: string[] = [];
  const { metadata, spec } = pod;
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    errors.push(...qualifiedNameErrors('metadata.labels', key));
    if (value.length > 63 || !LABEL_VALUE.test(value)) {
      errors.push(`metadata.labels: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, at most 63 characters`);
    }
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    errors.push(...qualifiedNameErrors('metadata.annotations', key.toLowerCase()));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (annotationBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    errors.push(`metadata.annotations: Too long: may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`);
  }
  errors.push(...seccompAnnotationErrors(metadata.annotations), ...appArmorAnnotationErrors(pod));
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && (!Number.isInteger(deadline) || deadline < 1 || deadline > 2147483647)) {
    errors.push(`spec.activeDeadlineSeconds: Invalid value: ${JSON.stringify(deadline)}: must be between 1 and 2147483647, inclusive`);
  }
  const podContext = spec.securityContext;
  errors.push(...idErrors('spec.securityContext', podContext));
  if (podContext?.fsGroup !== undefined) errors.push(...idRangeErrors('spec.securityContext.fsGroup', podContext.fsGroup));
  (podContext?.supplementalGroups ?? []).forEach((gid, i) => errors.push(...idRangeErrors(`spec.securityContext.supplementalGroups[${i}]`, gid)));
  errors.push(...podSecurityContextErrors(spec), ...windowsOptionsErrors('spec.securityContext.windowsOptions', podContext?.windowsOptions));
  if (spec.hostname) errors.push(...dnsLabelErrors('spec.hostname', spec.hostname));
  if (spec.subdomain) errors.push(...dnsLabelErrors('spec.subdomain', spec.subdomain));
  const groups = [['spec.initContainers', spec.initContainers ?? []], ['spec.containers', spec.containers]] as const;
  for (const [group, containers] of groups) {
    containers.forEach((container, i) => errors.push(...containerErrors(`${group}[${i}]`, container)));
  }
  errors.push(...hostProcessErrors(spec), ...podOsErrors(spec), ...seccompAgreementErrors(pod));
  // Ephemeral containers are added to a running pod through their own subresource, never created with it.
  if ((spec.ephemeralContainers ?? []).length > 0) errors.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  return errors;
}

/** Go's IsValidUserID / IsValidGroupID: the ids the kubelet chowns to and the runtime runs as. */
function idRangeErrors(path: string, id: number): string[] {
  return id < 0 || id > 2147483647 ? [invalid(path, id, inclusiveRange(0, 2147483647))] : [];
}

function idErrors(path: string, context: { runAsUser?: number; runAsGroup?: number } | undefined): string[] {
  return [
    ...(context?.runAsUser !== undefined ? idRangeErrors(`${path}.runAsUser`, context.runAsUser) : []),
    ...(context?.runAsGroup !== undefined ? idRangeErrors(`${path}.runAsGroup`, context.runAsGroup) : []),
  ];
}

function containerErrors(path: string, container: Container): string[] {
  const errors: string[] = [];
  (container.ports ?? []).forEach((port, j) => {
    const hostPort = port.hostPort;
    // 0 (or absent) means no host port.
    if (hostPort !== undefined && hostPort !== 0 && (!Number.isInteger(hostPort) || hostPort < 1 || hostPort > 65535)) {
      errors.push(`${path}.ports[${j}].hostPort: Invalid value: ${JSON.stringify(hostPort)}: must be between 1 and 65535, inclusive`);
    }
  });
  errors.push(...idErrors(`${path}.securityContext`, container.securityContext));
  errors.push(...containerSecurityContextErrors(path, container.securityContext));
  errors.push(...windowsOptionsErrors(`${path}.securityContext.windowsOptions`, container.securityContext?.windowsOptions));
  (container.env ?? []).forEach((env, j) => {
    if (!env.name) errors.push(`${path}.env[${j}].name: Required value`);
  });
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    errors.push(...probeErrors(`${path}.${kind}`, container[kind]));
  }
  errors.push(...negativeQuantityErrors(`${path}.resources.requests`, container.resources?.requests));
  errors.push(...negativeQuantityErrors(`${path}.resources.limits`, container.resources?.limits));
  return errors;
}

function probeErrors(path: string, probe: Probe | undefined): string[] {
  if (probe === undefined) return [];
  const errors: string[] = [];
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const value = probe[field];
    if (value !== undefined && value < 0) errors.push(`${path}.${field}: Invalid value: ${JSON.stringify(value)}: must be greater than or equal to 0`);
  }
  return errors;
}

/** Amounts that parse (validatePod reports those that do not) but are below zero. */
function negativeQuantityErrors(path: string, list: ResourceList | undefined): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(list ?? {})) {
    try {
      if (parseQuantity(String(value)).num < 0n) errors.push(`${path}[${name}]: Invalid value: ${JSON.stringify(value)}: must be greater than or equal to 0`);
    } catch {
      // not a quantity: reported by validatePod
    }
  }
  return errors;
}

/** Go's IsQualifiedName: an optional DNS-subdomain prefix and `/`, then a name part of at most 63. */
function qualifiedNameErrors(path: string, key: string): string[] {
  const parts = key.split('/');
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  const problems: string[] = [];
  if (parts.length > 2) problems.push("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'");
  else {
    if (name.length === 0) problems.push('name part must be non-empty');
    else if (name.length > 63) problems.push('name part must be no more than 63 characters');
    else if (!QUALIFIED_NAME_PART.test(name)) problems.push(NAME_PART_MESSAGE);
    if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
      problems.push('prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character');
    }
  }
  return problems.map((problem) => `${path}: Invalid value: ${JSON.stringify(key)}: ${problem}`);
}
