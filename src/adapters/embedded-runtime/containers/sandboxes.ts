/**
 * Sandboxes: records only (no process, host network). As containerd's CRI plugin does: stopping or
 * removing an unknown id succeeds, the status of an unknown id is NOT_FOUND, StopPodSandbox kills
 * without grace, RemovePodSandbox removes the pod's containers.
 */
import { hostname } from 'node:os';
import { KubeletError } from '../../../domain/errors.js';
import type { PodSandboxConfig__Output } from '../../../generated/runtime/v1/PodSandboxConfig.js';
import type { PodSandboxFilter__Output } from '../../../generated/runtime/v1/PodSandboxFilter.js';
import type { PodSandboxStatusResponse } from '../../../generated/runtime/v1/PodSandboxStatusResponse.js';
import { currentBootId } from '../state/boot-id.js';
import { toPodSandbox, type ListedSandbox } from './container-answers.js';
import { removeContainer } from './containers.js';
import { filterSandboxes, matchesLabelSelector } from './filters.js';
import { newId } from '../state/new-id.js';
import { stopLocked } from './processes.js';
import type { SandboxRecord } from '../state/records.js';
import type { RuntimeState } from '../state/runtime-state.js';
import { refuseSeccompFilter } from './seccomp-refusal.js';
import { refuseUnenforcedSandboxSecurity } from './security-refusals.js';
import { refuseRuntimeHandler, refuseUserNamespace } from './sandbox-refusals.js';

function sandboxName(sandbox: { metadata: { name: string; namespace: string; uid: string; attempt?: number } }): string {
  const m = sandbox.metadata;
  return `${m.name}_${m.namespace}_${m.uid}_${m.attempt ?? 0}`;
}

export async function runPodSandbox(state: RuntimeState, config: PodSandboxConfig__Output | null, runtimeHandler: string): Promise<string> {
  const metadata = config?.metadata;
  if (!config || !metadata || !metadata.name || !metadata.uid || !metadata.namespace) {
    throw new KubeletError('KLT_ERR_CRI_INVALID_ARGUMENT', 'sandbox config must include metadata with name, uid and namespace');
  }
  refuseSeccompFilter('sandbox', config.linux?.security_context?.seccomp);
  refuseUnenforcedSandboxSecurity(config.linux?.security_context?.selinux_options);
  refuseRuntimeHandler(runtimeHandler);
  refuseUserNamespace('sandbox', config.linux?.security_context?.namespace_options);
  const name = sandboxName({ metadata });
  const clash = [...state.sandboxes.values()].find((s) => sandboxName(s) === name);
  if (clash) {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `failed to reserve sandbox name ${JSON.stringify(name)}: name is reserved for ${clash.id}`);
  }
  const record: SandboxRecord = {
    id: newId(),
    metadata: { name: metadata.name, uid: metadata.uid, namespace: metadata.namespace, attempt: metadata.attempt ?? 0 },
    state: 'SANDBOX_READY',
    created_at: state.options.nowNs().toString(),
    labels: { ...config.labels },
    annotations: { ...config.annotations },
    log_directory: config.log_directory ?? '',
    hostname: config.hostname ?? '',
    runtime_handler: runtimeHandler,
    boot_id: currentBootId(),
    ...(config.linux?.cgroup_parent ? { cgroup_parent: config.linux.cgroup_parent } : {}),
    port_mappings: config.port_mappings.map((m) => ({ protocol: m.protocol, container_port: m.container_port, host_port: m.host_port, host_ip: m.host_ip })),
  };
  state.sandboxes.set(record.id, record);
  await state.sandboxStore.put(record);
  state.options.logger.info({ podSandboxId: record.id, pod: `${metadata.namespace}/${metadata.name}` }, 'Ran pod sandbox');
  return record.id;
}

/** Kills whatever still runs in the pod, at once (the kubelet stops containers gracefully first). */
export async function stopPodSandbox(state: RuntimeState, id: string): Promise<void> {
  const sandbox = state.findSandbox(id);
  if (!sandbox) return;
  await Promise.all(state.containersOf(sandbox.id).map((c) => state.locks.run(c.id, () => stopLocked(state, c, 0))));
  if (sandbox.state !== 'SANDBOX_NOTREADY') {
    sandbox.state = 'SANDBOX_NOTREADY';
    await state.sandboxStore.put(sandbox);
  }
}

export async function removePodSandbox(state: RuntimeState, id: string): Promise<void> {
  const sandbox = state.findSandbox(id);
  if (!sandbox) return;
  await stopPodSandbox(state, sandbox.id);
  for (const container of state.containersOf(sandbox.id)) await removeContainer(state, container.id);
  state.sandboxes.delete(sandbox.id);
  await state.sandboxStore.delete(sandbox.id);
}

export function podSandboxStatus(state: RuntimeState, id: string, verbose: boolean): PodSandboxStatusResponse {
  const sandbox = state.requireSandbox(id);
  const status = {
    ...toPodSandbox(sandbox),
    network: { ip: state.podIP, additional_ips: [] },
    linux: { namespaces: { options: { network: 'NODE', pid: 'NODE', ipc: 'NODE' } } },
  } satisfies PodSandboxStatusResponse['status'];
  const info: Record<string, string> = verbose
    ? { info: JSON.stringify({ sandboxID: sandbox.id, logDirectory: sandbox.log_directory, hostname: sandbox.hostname || hostname() }) }
    : {};
  return { status, info };
}

/** The stats filters select sandboxes by id and labels too, so they are listed through here. */
type SandboxSelector = Pick<PodSandboxFilter__Output, 'id' | 'label_selector'> & Partial<Pick<PodSandboxFilter__Output, 'state'>>;

export function listPodSandbox(state: RuntimeState, filter: SandboxSelector | null): ListedSandbox[] {
  if (!filter) return state.allSandboxes.keep([...state.sandboxes.values()].map(toPodSandbox));
  const selected = [...state.sandboxes.values()].filter((s) => matchesLabelSelector(s.labels, filter.label_selector));
  const resolved = filter.id ? { ...filter, id: state.findSandbox(filter.id)?.id ?? filter.id } : filter;
  return filterSandboxes(selected.map(toPodSandbox), resolved);
}
