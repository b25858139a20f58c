/**
 * Pure helpers the syncLoop uses: kill grace periods, which pods admission counts, which
 * container probes to run for a pod's status, and when a pod's dead containers may all go.
 */
import { isRestartableInitContainer } from '../runtime/init-containers.js';
import { isTerminalPhase } from './status.js';
import type { ProbeType } from '../probe/types.js';
import type { Container, Pod, PodStatus, Probe } from './types.js';

const PROBE_FIELDS: Record<ProbeType, keyof Container> = {
  liveness: 'livenessProbe',
  readiness: 'readinessProbe',
  startup: 'startupProbe',
};

/** Grace period for a kill: the deletion's own, else the pod's, else Go's default 30 s. */
export function killGracePeriod(pod: Pod): number {
  return pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
}

export interface ProbeTargetRef {
  container: Container;
  probe: ProbeType;
  /** The runtime's container id, without the `<runtime>://` prefix. */
  containerId: string;
  startedAtMs: number;
}

/**
 * Running containers with a probe, each with its id and start time (ms), from the API status: the
 * regular ones and the sidecars (restartable init containers), whose probes Go runs too; an
 * ordinary init container's probes are never run (the API refuses them).
 */
export function probeTargets(pod: Pod, status: PodStatus): ProbeTargetRef[] {
  const out: ProbeTargetRef[] = [];
  const sidecars = (pod.spec.initContainers ?? []).filter(isRestartableInitContainer);
  const running = [
    ...(status.containerStatuses ?? []).map((cs) => ({ cs, container: pod.spec.containers.find((c) => c.name === cs.name) })),
    ...(status.initContainerStatuses ?? []).map((cs) => ({ cs, container: sidecars.find((c) => c.name === cs.name) })),
  ];
  for (const { cs, container } of running) {
    const startedAt = cs.state?.running?.startedAt;
    if (!startedAt || !container) continue;
    for (const probe of Object.keys(PROBE_FIELDS) as ProbeType[]) {
      if (container[PROBE_FIELDS[probe]] as Probe | undefined) {
        out.push({ container, probe, containerId: (cs.containerID ?? '').replace(/^[a-z0-9-]+:\/\//, ''), startedAtMs: Date.parse(startedAt) });
      }
    }
  }
  return out;
}

/**
 * Whether a pod counts as using the node when another is admitted (Go's filterOutInactivePods): a
 * pod being killed does until its worker is done; a pod whose worker drives it does unless its
 * phase is already Succeeded or Failed (its containers are stopped). Rejected and terminated pods
 * never do.
 */
export function isActiveForAdmission(lifecycle: 'active' | 'terminating' | 'terminated' | 'rejected', status: PodStatus | null): boolean {
  return lifecycle === 'terminating' || (lifecycle === 'active' && !isTerminalPhase(status?.phase));
}

/**
 * Whether all of a pod's dead containers may be removed (Go's ShouldPodContentBeRemoved, less the
 * eviction case kubelet-ts does not have yet): a pod deleted through the API or removed from its
 * source whose worker is done; a pod the kubelet does not have, once every source has been seen
 * (before that, an unknown pod may still be on its way from a source).
 */
export function isPodContentRemovable(
  entry: { pod: Pod; lifecycle: 'active' | 'terminating' | 'terminated' | 'rejected'; removed: boolean } | undefined,
  sourcesReady: boolean,
): boolean {
  if (!entry) return sourcesReady;
  const deleted = entry.removed || entry.pod.metadata.deletionTimestamp !== undefined;
  return deleted && entry.lifecycle === 'terminated';
}

/**
 * The resync jitter a pod worker waits (Go draws wait.Jitter(syncFrequency, 0.5) at random): a
 * fraction in [0, 1) from an FNV-1a hash of the pod UID, so pods spread out over the period and a
 * replay draws the very same numbers.
 */
export function resyncJitterFraction(uid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < uid.length; i++) {
    h ^= uid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}
