/**
 * ListPodSandbox / ListContainers filters, with containerd's semantics: every field that is set must
 * match; a label selector matches when every key=value in it is among the object's labels (an empty
 * selector matches everything). Id prefixes are resolved to full ids by the caller before filtering.
 */
import type { Container, ContainerFilter, Labels, PodSandbox, PodSandboxFilter } from '../../ports/cri.js';

export function matchesLabelSelector(labels: Labels, selector: Labels | undefined | null): boolean {
  if (!selector) return true;
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

export function filterSandboxes(sandboxes: PodSandbox[], filter: PodSandboxFilter | undefined | null): PodSandbox[] {
  if (!filter) return sandboxes;
  return sandboxes.filter((sandbox) =>
    (!filter.id || sandbox.id === filter.id) &&
    (!filter.state || sandbox.state === filter.state.state) &&
    matchesLabelSelector(sandbox.labels, filter.label_selector));
}

export function filterContainers(containers: Container[], filter: ContainerFilter | undefined | null): Container[] {
  if (!filter) return containers;
  return containers.filter((container) =>
    (!filter.id || container.id === filter.id) &&
    (!filter.pod_sandbox_id || container.pod_sandbox_id === filter.pod_sandbox_id) &&
    (!filter.state || container.state === filter.state.state) &&
    matchesLabelSelector(container.labels, filter.label_selector));
}
