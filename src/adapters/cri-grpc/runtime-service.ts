/** runtime.v1.RuntimeService over a grpc-js client: request shapes in, port shapes out. */
import type * as grpc from '@grpc/grpc-js';
import type {
  CallOptions, CgroupDriver, Container, ContainerConfig, ContainerFilter, ContainerStats, ContainerStatsFilter,
  ContainerStatusResponse, CriRuntimeService, ExecSyncResponse, KeyValue, LinuxContainerResources, PodSandbox,
  PodSandboxConfig, PodSandboxFilter, PodSandboxStats, PodSandboxStatsFilter, PodSandboxStatusResponse,
  StatusResponse, VersionResponse,
} from '../../ports/cri.js';
import {
  deadlineMs, execSyncDeadlineMs, stopContainerDeadlineMs, type CallKind, type CriDeadlines,
} from './deadlines.js';
import { unaryCall } from './unary-call.js';

/** The CRI API version string the Go kubelet sends in VersionRequest. */
export const KUBE_RUNTIME_API_VERSION = '0.1.0';

/** Every optional method of the port, implemented. */
export type GrpcCriRuntimeService = Required<CriRuntimeService>;

/**
 * KeyValue.value is `bytes`: protobufjs reads a JS string there as base64 and garbles it. The port
 * says Buffer, but values that went through JSON (journal replay, plain JS callers) arrive as
 * strings, so they are encoded as UTF-8 here rather than corrupted silently.
 */
function envsAsBytes(envs: KeyValue[] | undefined): KeyValue[] | undefined {
  return envs?.map((kv) => ({
    key: kv.key,
    value: typeof kv.value === 'string' ? Buffer.from(kv.value as string, 'utf8') : kv.value,
  }));
}

export function createRuntimeService(client: grpc.Client, deadlines: CriDeadlines): GrpcCriRuntimeService {
  const call = <Res>(rpc: string, request: object, kind: CallKind, opts?: CallOptions): Promise<Res> =>
    unaryCall<Res>(client, rpc, request, opts?.timeoutMs ?? deadlineMs(deadlines, kind));

  return {
    version: (opts) => call<VersionResponse>('Version', { version: KUBE_RUNTIME_API_VERSION }, 'read', opts),
    status: (verbose = false, opts) => call<StatusResponse>('Status', { verbose }, 'read', opts),

    runPodSandbox: async (config, runtimeHandler = '', opts) =>
      (await call<{ pod_sandbox_id: string }>('RunPodSandbox', { config, runtime_handler: runtimeHandler }, 'mutate', opts))
        .pod_sandbox_id,
    stopPodSandbox: async (podSandboxId, opts) => {
      await call('StopPodSandbox', { pod_sandbox_id: podSandboxId }, 'mutate', opts);
    },
    removePodSandbox: async (podSandboxId, opts) => {
      await call('RemovePodSandbox', { pod_sandbox_id: podSandboxId }, 'mutate', opts);
    },
    podSandboxStatus: (podSandboxId, verbose = false, opts) =>
      call<PodSandboxStatusResponse>('PodSandboxStatus', { pod_sandbox_id: podSandboxId, verbose }, 'read', opts),
    listPodSandbox: async (filter?: PodSandboxFilter, opts?: CallOptions) =>
      (await call<{ items: PodSandbox[] }>('ListPodSandbox', { filter }, 'read', opts)).items,

    createContainer: async (podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig, opts?: CallOptions) => {
      const request = { pod_sandbox_id: podSandboxId, config: { ...config, envs: envsAsBytes(config.envs) }, sandbox_config: sandboxConfig };
      return (await call<{ container_id: string }>('CreateContainer', request, 'mutate', opts)).container_id;
    },
    startContainer: async (containerId, opts) => {
      await call('StartContainer', { container_id: containerId }, 'mutate', opts);
    },
    stopContainer: async (containerId, timeoutSeconds, opts) => {
      const timeoutMs = opts?.timeoutMs ?? stopContainerDeadlineMs(deadlines, timeoutSeconds);
      await unaryCall(client, 'StopContainer', { container_id: containerId, timeout: timeoutSeconds }, timeoutMs);
    },
    removeContainer: async (containerId, opts) => {
      await call('RemoveContainer', { container_id: containerId }, 'mutate', opts);
    },
    listContainers: async (filter?: ContainerFilter, opts?: CallOptions) =>
      (await call<{ containers: Container[] }>('ListContainers', { filter }, 'read', opts)).containers,
    containerStatus: (containerId, verbose = false, opts) =>
      call<ContainerStatusResponse>('ContainerStatus', { container_id: containerId, verbose }, 'read', opts),
    execSync: (containerId, cmd, timeoutSeconds, opts) => {
      const timeoutMs = opts?.timeoutMs ?? execSyncDeadlineMs(deadlines, timeoutSeconds);
      return unaryCall<ExecSyncResponse>(client, 'ExecSync', { container_id: containerId, cmd, timeout: timeoutSeconds }, timeoutMs);
    },

    updateContainerResources: async (containerId: string, linux: LinuxContainerResources, opts?: CallOptions) => {
      await call('UpdateContainerResources', { container_id: containerId, linux }, 'mutate', opts);
    },
    reopenContainerLog: async (containerId, opts) => {
      await call('ReopenContainerLog', { container_id: containerId }, 'mutate', opts);
    },
    // Stats can make the runtime walk cgroups and filesystems: the long deadline, as in Go.
    containerStats: async (containerId, opts) =>
      (await call<{ stats: ContainerStats | null }>('ContainerStats', { container_id: containerId }, 'mutate', opts)).stats,
    listContainerStats: async (filter?: ContainerStatsFilter, opts?: CallOptions) =>
      (await call<{ stats: ContainerStats[] }>('ListContainerStats', { filter }, 'mutate', opts)).stats,
    podSandboxStats: async (podSandboxId, opts) =>
      (await call<{ stats: PodSandboxStats | null }>('PodSandboxStats', { pod_sandbox_id: podSandboxId }, 'mutate', opts)).stats,
    listPodSandboxStats: async (filter?: PodSandboxStatsFilter, opts?: CallOptions) =>
      (await call<{ stats: PodSandboxStats[] }>('ListPodSandboxStats', { filter }, 'mutate', opts)).stats,
    updateRuntimeConfig: async (podCidr, opts) => {
      await call('UpdateRuntimeConfig', { runtime_config: { network_config: { pod_cidr: podCidr } } }, 'mutate', opts);
    },
    runtimeConfig: async (opts) =>
      (await call<{ linux: { cgroup_driver: CgroupDriver } | null }>('RuntimeConfig', {}, 'read', opts)).linux,
  };
}
