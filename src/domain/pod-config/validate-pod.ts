/**
 * The part of the API server's pod validation (pkg/apis/core/validation ValidatePodCreate) that
 * protects the kubelet: what would break naming, container bookkeeping or the restart logic, and
 * what names a path on the node (the UID, volumes and mounts: validate-pod-volumes.ts).
 * Messages follow Go's field.Error form, `<field path>: <what>`, so a rejected manifest names the
 * field at fault. Everything else the API server checks is not checked here (differs from Go).
 */
import { parseQuantity } from '../resources/quantity.js';
import type { Pod, ResourceList } from '../pod/types.js';
import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from '../names/dns1123.js';
import { notSupported as unsupported } from './field-errors.js';
import { podUidError } from './pod-uid.js';
import { containerRestartRuleErrors } from './validate-restart-rules.js';
import { validatePodCreateRules } from './validate-pod-create.js';
import { validatePodVolumes } from './validate-pod-volumes.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

export function isDns1123Subdomain(value: string): boolean {
  return value.length <= 253 && DNS1123_SUBDOMAIN.test(value);
}

export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** Every problem found, in field order; empty when the pod is acceptable. */
export function validatePod(pod: Pod): string[] {
  const errors: string[] = [];
  const { metadata, spec } = pod;
  if (!metadata.name) errors.push('metadata.name: Required value: name or generateName is required');
  else if (!isDns1123Subdomain(metadata.name)) {
    errors.push(`metadata.name: Invalid value: ${JSON.stringify(metadata.name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`);
  }
  if (metadata.namespace !== undefined && !isDns1123Label(metadata.namespace)) {
    errors.push(`metadata.namespace: Invalid value: ${JSON.stringify(metadata.namespace)}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`);
  }
  const uidError = podUidError(metadata.uid);
  if (uidError) errors.push(uidError);
  if (spec.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy)) {
    errors.push(unsupported('spec.restartPolicy', spec.restartPolicy, RESTART_POLICIES));
  }
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy)) {
    errors.push(unsupported('spec.dnsPolicy', spec.dnsPolicy, DNS_POLICIES));
  }
  const grace = spec.terminationGracePeriodSeconds;
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) {
    errors.push(`spec.terminationGracePeriodSeconds: Invalid value: ${JSON.stringify(grace)}: must be greater than or equal to 0`);
  }
  if (spec.containers.length === 0) errors.push('spec.containers: Required value');
  const seen = new Set<string>();
  const groups = [
    ['spec.initContainers', spec.initContainers ?? []],
    ['spec.containers', spec.containers],
  ] as const;
  for (const [group, containers] of groups) {
    containers.forEach((container, i) => {
      const path = `${group}[${i}]`;
      if (!container.name) errors.push(`${path}.name: Required value`);
      else if (!isDns1123Label(container.name)) {
        errors.push(`${path}.name: Invalid value: ${JSON.stringify(container.name)}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`);
      } else if (seen.has(container.name)) {
        errors.push(`${path}.name: Duplicate value: ${JSON.stringify(container.name)}`);
      }
      if (container.name) seen.add(container.name);
      if (typeof container.image !== 'string' || container.image.trim() === '') errors.push(`${path}.image: Required value`);
      if (container.imagePullPolicy !== undefined && !PULL_POLICIES.includes(container.imagePullPolicy)) {
        errors.push(unsupported(`${path}.imagePullPolicy`, container.imagePullPolicy, PULL_POLICIES));
      }
      (container.ports ?? []).forEach((port, j) => {
        const portPath = `${path}.ports[${j}]`;
        if (!Number.isInteger(port.containerPort) || port.containerPort < 1 || port.containerPort > 65535) {
          errors.push(`${portPath}.containerPort: Invalid value: ${JSON.stringify(port.containerPort)}: must be between 1 and 65535, inclusive`);
        }
        if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) {
          errors.push(unsupported(`${portPath}.protocol`, port.protocol, PROTOCOLS));
        }
      });
      errors.push(...containerRestartRuleErrors(path, container, group === 'spec.initContainers'));
      errors.push(...quantityErrors(`${path}.resources.requests`, container.resources?.requests));
      errors.push(...quantityErrors(`${path}.resources.limits`, container.resources?.limits));
    });
  }
  errors.push(...quantityErrors('spec.resources.requests', spec.resources?.requests));
  errors.push(...quantityErrors('spec.resources.limits', spec.resources?.limits));
  errors.push(...quantityErrors('spec.overhead', spec.overhead));
  errors.push(...validatePodVolumes(pod));
  errors.push(...validatePodCreateRules(pod));
  return errors;
}

/**
 * Every amount of a resource list must be a quantity (Go fails to decode the manifest otherwise):
 * admission, QoS and the runtime's cgroup settings all read them.
 */
function quantityErrors(path: string, list: ResourceList | undefined): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(list ?? {})) {
    try {
      parseQuantity(value);
    } catch (err) {
      const reason = typeof value === 'string' ? (err as Error).message : 'must be a quantity (a string such as "500m" or a number)';
      errors.push(`${path}[${name}]: Invalid value: ${JSON.stringify(value)}: ${reason}`);
    }
  }
  return errors;
}
