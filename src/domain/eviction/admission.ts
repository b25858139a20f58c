/**
 * The eviction manager's admit handler (Go: managerImpl.Admit): under no pressure every pod is
 * admitted; critical pods always are. Under MemoryPressure alone, a pod that is not BestEffort is
 * admitted, and a BestEffort pod only when it tolerates the memory-pressure NoSchedule taint. Any
 * other pressure (disk, pid) refuses every other pod. A refusal is reason `Evicted`, message
 * "The node had condition: [<conditions>]. ".
 */
import type { AdmissionResult } from '../pod/admission.js';
import { isCriticalPod } from '../pod/critical.js';
import { podQOS } from '../pod/qos.js';
import { toleratesTaint } from '../pod/tolerations.js';
import type { Pod } from '../pod/types.js';
import { EVICTED_REASON, nodeConditionMessage } from './messages.js';
import { PRESSURE_TAINT_KEYS, type PressureCondition } from './signals.js';

const memoryPressureTaint = { key: PRESSURE_TAINT_KEYS.MemoryPressure, effect: 'NoSchedule' as const };

function isBestEffort(pod: Pod): boolean {
  try {
    return podQOS(pod) === 'BestEffort';
  } catch {
    return false; // a quantity that does not parse: the pod asks for something, so it is not BestEffort
  }
}

export function admitUnderPressure(pod: Pod, conditions: readonly PressureCondition[]): AdmissionResult {
  if (conditions.length === 0 || isCriticalPod(pod)) return { admit: true };
  if (conditions.length === 1 && conditions[0] === 'MemoryPressure') {
    if (!isBestEffort(pod)) return { admit: true };
    if ((pod.spec.tolerations ?? []).some((t) => toleratesTaint(t, memoryPressureTaint))) return { admit: true };
  }
  return { admit: false, reason: EVICTED_REASON, message: nodeConditionMessage(conditions) };
}
