/**
 * The status manager's cost per pod config update, by how many pods the node has run before (all
 * gone since): 30 live pods with statuses, then the 90 updates of one pod each that a 30-pod burst's
 * watch brings. A status manager that kept every pod ever seen in its API views would copy them all
 * for each pod an update carries, a cost that grows with the node's history (docs/FINDINGS.md).
 * The ratio to a fresh node's cost should stay near 1.
 */
import type { Pod } from '../src/domain/pod/types.js';
import { applyPodConfigUpdate, initialStatusSyncState, setPodStatus, type StatusSyncState } from '../src/domain/status-manager/status-sync.js';
import { median, round } from './stats.js';

const LIVE = 30;
const UPDATES = 90;
const HISTORIES = [0, 1_000, 10_000] as const;

function apiPod(i: number, resourceVersion: number): Pod {
  return {
    metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}`, resourceVersion: String(resourceVersion), annotations: { 'kubernetes.io/config.source': 'api' } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: 'Pending' },
  };
}

/** A node that has run `history` pods, 100 at a time, each batch added and removed. */
function nodeWithHistory(history: number): StatusSyncState {
  let state = initialStatusSyncState('node-a', 'node-uid');
  for (let i = 0; i < history; i += 100) {
    const batch = Array.from({ length: 100 }, (_, k) => apiPod(i + k, 1));
    state = applyPodConfigUpdate(state, 'ADD', batch).state;
    state = applyPodConfigUpdate(state, 'REMOVE', batch).state;
  }
  return state;
}

/** CPU milliseconds of UPDATES updates over LIVE pods with statuses, on a node with this history. */
function updateBurst(history: number): { cpuMs: number; viewsKept: number } {
  let state = nodeWithHistory(history);
  const live = Array.from({ length: LIVE }, (_, k) => apiPod(history + k, 2));
  state = applyPodConfigUpdate(state, 'ADD', live).state;
  for (const pod of live) state = setPodStatus(state, pod.metadata.uid, { phase: 'Running' }).state;
  const t0 = process.cpuUsage();
  for (let u = 0; u < UPDATES; u++) state = applyPodConfigUpdate(state, 'UPDATE', [apiPod(history + (u % LIVE), 3 + u)]).state;
  const used = process.cpuUsage(t0);
  return { cpuMs: (used.user + used.system) / 1000, viewsKept: Object.keys(state.apiStatuses).length };
}

export function benchStatusHistory(runs = 5): Record<string, number> {
  const out: Record<string, number> = { livePods: LIVE, updates: UPDATES, runs };
  const cpu = new Map<number, number[]>(HISTORIES.map((h) => [h, []]));
  for (let r = 0; r < runs; r++) {
    for (const history of r % 2 === 0 ? HISTORIES : [...HISTORIES].reverse()) {
      const { cpuMs, viewsKept } = updateBurst(history);
      cpu.get(history)!.push(cpuMs);
      out[`history${history}.viewsKept`] = viewsKept;
    }
  }
  for (const history of HISTORIES) out[`history${history}.cpuMs`] = round(median(cpu.get(history)!), 1);
  out['history10000/history0'] = round(out['history10000.cpuMs']! / Math.max(out['history0.cpuMs']!, 0.1), 2);
  return out;
}
