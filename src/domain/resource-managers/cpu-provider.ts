/**
 * The CPU manager as a resource provider (Go's cpumanager.Manager: GetTopologyHints, Allocate).
 * With the none policy (no CPU inventory) it assigns nothing: every container runs on all CPUs.
 */
import type { ResourceProvider } from './admit.js';

export const cpuProvider: ResourceProvider = {
  name: 'cpu',
  hints: () => ({}),
  allocate: () => ({ ok: true, assignment: {} }),
};
