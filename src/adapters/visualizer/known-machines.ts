/**
 * The machines the page draws when the caller names none: the machine registry's, so the page and
 * `kubelet-ts graph` show the same machines.
 */
import type { StateGraph } from '../../domain/graph/model.js';
import { machineGraphs } from '../../machines/index.js';

export function knownMachineGraphs(): StateGraph[] {
  return machineGraphs();
}
