/**
 * Which container instance `/containerLogs` reads, chosen from the pod's API status as Go's
 * validateContainerLogStatus chooses it, with its messages (the server answers them as 400):
 * - `previous`: the last terminated instance (lastState), whatever the container does now;
 * - running: the running instance;
 * - terminated: that instance, or the one before when it has no ID (the next did not start);
 * - waiting to restart (back-off): the instance that last terminated, so a crash-looping or
 *   restarting container still shows its log between two runs;
 * - waiting, never started: no log, with the waiting reason.
 * Regular containers are looked up first, then init containers, then ephemeral ones.
 */
import type { ContainerStatus, PodStatus } from '../pod/types.js';

export type LogInstance = { ok: true; containerId: string } | { ok: false; message: string };

function find(status: PodStatus | null | undefined, name: string): ContainerStatus | undefined {
  const byName = (list: readonly ContainerStatus[] | undefined) => list?.find((c) => c.name === name);
  return byName(status?.containerStatuses) ?? byName(status?.initContainerStatuses) ?? byName(status?.ephemeralContainerStatuses);
}

export function containerLogInstance(status: PodStatus | null | undefined, podName: string, containerName: string, previous: boolean): LogInstance {
  const q = (s: string) => JSON.stringify(s);
  const where = `container ${q(containerName)} in pod ${q(podName)}`;
  const fail = (message: string): LogInstance => ({ ok: false, message });
  const cs = find(status, containerName);
  if (!cs) return fail(`${where} is not available`);
  const last = cs.lastState?.terminated;
  const lastId = last?.containerID ?? '';
  const { waiting, running, terminated } = cs.state ?? {};

  if (previous) {
    return last && lastId !== '' ? { ok: true, containerId: lastId } : fail(`previous terminated container ${q(containerName)} in pod ${q(podName)} not found`);
  }
  if (running) return { ok: true, containerId: cs.containerID ?? '' };
  if (terminated) {
    const id = terminated.containerID ?? '';
    if (id !== '') return { ok: true, containerId: id };
    return lastId !== '' ? { ok: true, containerId: lastId } : fail(`${where} is terminated`);
  }
  if (last) return lastId !== '' ? { ok: true, containerId: lastId } : fail(`${where} is terminated`);
  if (waiting) {
    const reason = waiting.reason ?? '';
    if (reason === 'ErrImagePull') return fail(`${where} is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') return fail(`${where} is waiting to start: trying and failing to pull image`);
    return fail(`${where} is waiting to start: ${reason}`);
  }
  return fail(`${where} is waiting to start - no logs yet`);
}
