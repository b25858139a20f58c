/**
 * Reads the runtime's view of one pod (Go's GetPodStatus): its sandboxes and containers found by
 * the io.kubernetes.pod.uid label, each with its status, newest first, converted to plain data.
 * A sandbox or container removed between the list and the status call is skipped, as in Go.
 * An exited container's message carries its termination message (Go's toKubeContainerStatus with
 * getTerminationMessage), read through `files` when given.
 */
import { KubeletError } from '../../domain/errors.js';
import { containerInfoFromRuntime, podNameLabel, podNamespaceLabel, podUidLabel } from '../../domain/runtime/labels.js';
import { newestFirst, type RuntimeContainerStatus, type RuntimePodStatus, type RuntimeSandboxStatus } from '../../domain/runtime/pod-status.js';
import type { ReportedLinuxResources } from '../../domain/runtime/actuated-resources.js';
import { withTerminationMessage } from '../../domain/runtime/termination-message.js';
import type { CriClient } from '../../ports/cri.js';
import type { PodFiles } from '../../ports/pod-files.js';
import { runtimeContainerState } from './container-state.js';

function isNotFound(err: unknown): boolean {
  return err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND';
}

/** Each listed item with its status, read one after the other; one removed since the list is skipped. */
async function* withStatuses<L extends { id: string }, S>(listed: readonly L[], read: (id: string) => Promise<{ status?: S | null }>): AsyncGenerator<{ listed: L; s: S }> {
  for (const item of listed) {
    let response;
    try {
      response = await read(item.id);
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    if (response.status) yield { listed: item, s: response.status };
  }
}

/** The settings a resize compares, and only those (the status is journaled). */
function reportedLinuxResources(linux: ReportedLinuxResources): ReportedLinuxResources {
  const { cpu_shares, cpu_quota, cpu_period, memory_limit_in_bytes } = linux;
  return { cpu_shares, cpu_quota, cpu_period, memory_limit_in_bytes };
}

export async function readPodStatus(cri: CriClient, uid: string, files?: Pick<PodFiles, 'readTerminationMessage'>): Promise<RuntimePodStatus> {
  const selector = { [podUidLabel]: uid };
  const [sandboxList, containerList] = await Promise.all([
    cri.runtime.listPodSandbox({ label_selector: selector }),
    cri.runtime.listContainers({ label_selector: selector }),
  ]);

  const sandboxes: RuntimeSandboxStatus[] = [];
  let name = '';
  let namespace = '';
  for await (const { s } of withStatuses(sandboxList, (id) => cri.runtime.podSandboxStatus(id))) {
    const ips = s.network ? [s.network.ip, ...(s.network.additional_ips ?? []).map((a) => a.ip)].filter((ip) => ip !== '') : [];
    sandboxes.push({ id: s.id, attempt: s.metadata.attempt, ready: s.state === 'SANDBOX_READY', createdAt: s.created_at, ips, hasNetworkStatus: s.network !== null });
    name ||= s.metadata.name;
    namespace ||= s.metadata.namespace;
  }
  sandboxes.sort(newestFirst);

  const containers: RuntimeContainerStatus[] = [];
  for await (const { listed, s } of withStatuses(containerList, (id) => cri.runtime.containerStatus(id))) {
    const info = containerInfoFromRuntime(s.labels, s.annotations);
    const state = runtimeContainerState(s.state);
    const message = state === 'exited' && files
      ? withTerminationMessage(s.message, await files.readTerminationMessage({ exit_code: s.exit_code, reason: s.reason, annotations: s.annotations, mounts: s.mounts, log_path: s.log_path }))
      : s.message;
    containers.push({
      id: s.id,
      name: s.metadata.name || info.containerName,
      state,
      createdAt: s.created_at,
      startedAt: s.started_at,
      finishedAt: s.finished_at,
      exitCode: s.exit_code,
      reason: s.reason,
      message,
      image: s.image.image,
      imageRef: s.image_ref,
      hash: info.hash,
      ...(info.hashWithoutResources !== undefined ? { hashWithoutResources: info.hashWithoutResources } : {}),
      restartCount: info.restartCount,
      sandboxId: listed.pod_sandbox_id,
      ...(state === 'running' && s.resources?.linux ? { resources: reportedLinuxResources(s.resources.linux) } : {}),
    });
    name ||= s.labels[podNameLabel] ?? '';
    namespace ||= s.labels[podNamespaceLabel] ?? '';
  }
  containers.sort(newestFirst);

  // Pod IPs come from the newest sandbox only, and only while it is ready.
  const newest = sandboxes[0];
  return { uid, name, namespace, ips: newest?.ready ? newest.ips : [], sandboxes, containers };
}
