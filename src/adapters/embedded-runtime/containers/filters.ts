/**
 * ListPodSandbox / ListContainers filters, with containerd's semantics: every field that is set must
 * match; a label selector matches when every key=value in it is among the object's labels (an empty
 * selector matches everything). Id prefixes are resolved to full ids by the caller before filtering.
 * The stats filters have the same fields less `state`, so one shape serves all four.
 */
import type { Labels } from '../../../ports/cri.js';

interface Listed<State> { id?: string; state?: State; labels?: Labels; pod_sandbox_id?: string }
interface Filter<State> { id?: string; state?: { state?: State } | null; label_selector?: Labels | null; pod_sandbox_id?: string }

export function matchesLabelSelector(labels: Labels | undefined, selector: Labels | undefined | null): boolean {
  if (!selector) return true;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

export function filterSandboxes<State, T extends Listed<State>>(sandboxes: T[], filter: Filter<State> | undefined | null): T[] {
  if (!filter) return sandboxes;
  return sandboxes.filter((sandbox) =>
    (!filter.id || sandbox.id === filter.id) &&
    (!filter.state || sandbox.state === filter.state.state) &&
    matchesLabelSelector(sandbox.labels, filter.label_selector));
}

export function filterContainers<State, T extends Listed<State>>(containers: T[], filter: Filter<State> | undefined | null): T[] {
  if (!filter) return containers;
  return containers.filter((container) =>
    (!filter.id || container.id === filter.id) &&
    (!filter.pod_sandbox_id || container.pod_sandbox_id === filter.pod_sandbox_id) &&
    (!filter.state || container.state === filter.state.state) &&
    matchesLabelSelector(container.labels, filter.label_selector));
}
