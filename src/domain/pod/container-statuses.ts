/**
 * Container statuses for the API (kubelet_pods.go convertToAPIContainerStatuses), from the
 * runtime's view, the previous API statuses and the reason cache:
 *
 * 1. Every spec container starts as waiting (ContainerCreating, or PodInitializing when the pod has
 *    init containers); a previous status that was terminated is kept as is, otherwise its restart
 *    count and last state carry over.
 * 2. A container that was running before and that the runtime no longer knows is shown as having
 *    terminated (ContainerStatusUnknown, exit 137), its restart count bumped unless the pod is
 *    being deleted.
 * 3. The runtime's newest instance of each container gives its state, the one before its last state.
 * 4. A container that will be restarted on the next sync and has a start failure in the reason
 *    cache is waiting with that reason (CrashLoopBackOff, ErrImagePull…); its terminated state
 *    moves to the last state. An init container that exited 0 is never shown waiting again.
 * 5. Regular statuses are sorted by name (SortedContainerStatuses), init ones by spec order.
 *
 * Ready and started are the probe manager's part and are set by generateAPIPodStatus.
 */
import { findContainerStatus, newestFirst, type RuntimeContainerStatus, type RuntimePodStatus } from '../runtime/pod-status.js';
import { shouldContainerBeRestarted } from '../runtime/compute-pod-actions.js';
import { RUNTIME_SUPPORTS_RECURSIVE_READ_ONLY, volumeMountStatuses } from '../runtime/recursive-read-only.js';
import { containerStatusResources, runtimeContainerResources } from '../resize/status-resources.js';
import type { ReasonCache } from './sync-outcome.js';
import { rfc3339FromNanos } from './timestamps.js';
import type { Container, ContainerState, ContainerStatus, Pod } from './types.js';

export const ContainerCreating = 'ContainerCreating';
export const PodInitializing = 'PodInitializing';
export const ContainerStatusUnknown = 'ContainerStatusUnknown';

export interface ConvertContainerStatusesInput {
  pod: Pod;
  runtimeStatus: RuntimePodStatus;
  containers: readonly Container[];
  previous: readonly ContainerStatus[] | undefined;
  hasInitContainers: boolean;
  isInitContainer: boolean;
  reasons: ReasonCache;
  /** The runtime's name, the scheme of container ids ("containerd://…"). */
  runtimeName: string;
  /** No resize is in progress: the containers run what is allocated, the memory request included (which no runtime reports). */
  resizeSettled?: boolean;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function convertOne(cs: RuntimeContainerStatus, old: ContainerStatus | undefined, runtimeName: string): ContainerStatus {
  const containerID = `${runtimeName}://${cs.id}`;
  let state: ContainerState;
  switch (cs.state) {
    case 'running':
      state = { running: { startedAt: rfc3339FromNanos(cs.startedAt) } };
      break;
    case 'created':
      // Created but not started: waiting to run.
      state = { waiting: {} };
      break;
    case 'exited':
      state = {
        terminated: {
          exitCode: cs.exitCode,
          ...(cs.reason !== '' ? { reason: cs.reason } : {}),
          ...(cs.message !== '' ? { message: cs.message } : {}),
          startedAt: rfc3339FromNanos(cs.startedAt),
          finishedAt: rfc3339FromNanos(cs.finishedAt),
          containerID,
        },
      };
      break;
    default:
      // Unknown: if it was running before, it is gone; otherwise waiting.
      state = old?.state?.running
        ? { terminated: { exitCode: 137, reason: ContainerStatusUnknown, message: 'The container could not be located when the pod was terminated' } }
        : { waiting: {} };
  }
  return { name: cs.name, state, lastState: {}, ready: false, restartCount: cs.restartCount, image: cs.image, imageID: cs.imageRef, containerID };
}

/** Its resources as Go reports them (status-resources.ts); the previous status counts only for the same running container. */
function resourcesInStatus(spec: Container, cs: RuntimeContainerStatus, converted: ContainerStatus, old: ContainerStatus | undefined, settled: boolean) {
  const running = converted.state?.running !== undefined;
  const sameRunning = old?.state?.running !== undefined && old.containerID === converted.containerID ? old : undefined;
  return containerStatusResources(spec, running, runtimeContainerResources(cs.resources), sameRunning, settled);
}

export function convertContainerStatuses(input: ConvertContainerStatusesInput): ContainerStatus[] {
  const { pod, runtimeStatus, containers, hasInitContainers, runtimeName } = input;
  const oldByName = new Map((input.previous ?? []).map((s) => [s.name, s]));
  const defaultReason = hasInitContainers ? PodInitializing : ContainerCreating;

  // Step 1: defaults.
  const statuses = new Map<string, ContainerStatus>();
  for (const c of containers) {
    const old = oldByName.get(c.name);
    if (old?.state?.terminated) {
      statuses.set(c.name, clone(old));
      continue;
    }
    const volumeMounts = volumeMountStatuses(c, RUNTIME_SUPPORTS_RECURSIVE_READ_ONLY);
    statuses.set(c.name, {
      name: c.name,
      state: { waiting: { reason: defaultReason } },
      lastState: old?.lastState ? clone(old.lastState) : {},
      ready: false,
      restartCount: old?.restartCount ?? 0,
      image: c.image,
      imageID: '',
      ...(volumeMounts.length > 0 ? { volumeMounts } : {}),
    });
  }

  // Step 2: a container that was running and disappeared from the runtime has terminated.
  for (const c of containers) {
    if (runtimeStatus.containers.some((cs) => cs.name === c.name)) continue;
    const old = oldByName.get(c.name);
    if (!old || old.state?.terminated || !old.state?.running) continue;
    const status = statuses.get(c.name);
    if (!status || status.state?.waiting?.reason !== defaultReason || status.lastState?.terminated) continue;
    status.lastState = {
      terminated: { exitCode: 137, reason: ContainerStatusUnknown, message: 'The container could not be located when the pod was deleted.  The container used to be Running' },
    };
    if (!pod.metadata.deletionTimestamp) status.restartCount += 1;
  }

  // Step 3: the runtime's two newest instances per container.
  const seen = new Map<string, number>();
  for (const cs of [...runtimeStatus.containers].sort(newestFirst)) {
    const current = statuses.get(cs.name);
    if (!current) continue;
    const count = seen.get(cs.name) ?? 0;
    if (count >= 2) continue;
    const converted = convertOne(cs, oldByName.get(cs.name), runtimeName);
    // The runtime knows no volume names: the mounts are the spec's, as step 1 made them (Go carries
    // the previous status's, so the first status to see the container would have none).
    if (current.volumeMounts !== undefined) converted.volumeMounts = current.volumeMounts;
    if (count === 0) {
      const spec = containers.find((c) => c.name === cs.name);
      if (spec) Object.assign(converted, resourcesInStatus(spec, cs, converted, oldByName.get(cs.name), input.resizeSettled ?? true));
      statuses.set(cs.name, converted);
    }
    else current.lastState = converted.state ?? {};
    seen.set(cs.name, count + 1);
  }

  // Step 4: containers the next sync restarts show their last start failure.
  for (const c of containers) {
    if (input.isInitContainer) {
      const s = findContainerStatus(runtimeStatus, c.name);
      if (s && s.state === 'exited' && s.exitCode === 0) continue;
    }
    if (!shouldContainerBeRestarted(c, pod, runtimeStatus)) continue;
    const failure = input.reasons[c.name];
    const status = statuses.get(c.name);
    if (!failure || !status) continue;
    if (status.state?.terminated) status.lastState = status.state;
    status.state = { waiting: { reason: failure.reason, ...(failure.message !== '' ? { message: failure.message } : {}) } };
  }

  // Step 5: order.
  const ordered = containers.map((c) => statuses.get(c.name)).filter((s): s is ContainerStatus => s !== undefined);
  return input.isInitContainer ? ordered : ordered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
