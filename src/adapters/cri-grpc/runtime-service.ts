/** runtime.v1.RuntimeService over a CRI channel: request shapes in, port shapes out. */
import type { RuntimeServiceDefinition } from '../../generated/runtime/v1/RuntimeService.js';
import type { CallOptions, CriRuntimeService, KeyValue } from '../../ports/cri.js';
import {
  deadlineMs, execSyncDeadlineMs, stopContainerDeadlineMs, type CallKind, type CriDeadlines,
} from './deadlines.js';
import type { ServiceCodecs } from '../proto-service.js';
import { type CriChannel, unaryCall, type UnaryMethod } from './unary-call.js';
import { completeContainerStatus, completeSandboxStatus, listedContainers, listedSandboxes } from './complete-answers.js';

/** The CRI API version string the Go kubelet sends in VersionRequest. */
export const KUBE_RUNTIME_API_VERSION = '0.1.0';

/** Every optional method of the port, implemented. */
export type GrpcCriRuntimeService = Required<CriRuntimeService>;

/**
 * KeyValue.value is `bytes`: protobufjs reads a JS string there as base64 and garbles it. Values that
 * went through JSON (journal replay, plain JS callers) arrive as strings, so they are encoded as UTF-8
 * here rather than corrupted silently.
 */
function envsAsBytes(envs: KeyValue[] | undefined): KeyValue[] | undefined {
  return envs?.map((kv) => ({
    key: kv.key,
    value: typeof kv.value === 'string' ? Buffer.from(kv.value, 'utf8') : kv.value,
  }));
}

export function createRuntimeService(channel: CriChannel, service: ServiceCodecs<RuntimeServiceDefinition>, deadlines: CriDeadlines): GrpcCriRuntimeService {
  const call = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, kind: CallKind, opts?: CallOptions): Promise<Res> =>
    unaryCall(channel.client(), method, request, opts?.timeoutMs ?? deadlineMs(deadlines, kind));

  return {
    version: (opts) => call(service.Version, { version: KUBE_RUNTIME_API_VERSION }, 'read', opts),
    status: (verbose = false, opts) => call(service.Status, { verbose }, 'read', opts),

    runPodSandbox: async (config, runtimeHandler = '', opts) =>
      (await call(service.RunPodSandbox, { config, runtime_handler: runtimeHandler }, 'mutate', opts)).pod_sandbox_id,
    stopPodSandbox: async (podSandboxId, opts) => {
      await call(service.StopPodSandbox, { pod_sandbox_id: podSandboxId }, 'mutate', opts);
    },
    removePodSandbox: async (podSandboxId, opts) => {
      await call(service.RemovePodSandbox, { pod_sandbox_id: podSandboxId }, 'mutate', opts);
    },
    podSandboxStatus: async (podSandboxId, verbose = false, opts) =>
      completeSandboxStatus(await call(service.PodSandboxStatus, { pod_sandbox_id: podSandboxId, verbose }, 'read', opts)),
    listPodSandbox: async (filter, opts) =>
      listedSandboxes((await call(service.ListPodSandbox, { filter }, 'read', opts)).items),

    createContainer: async (podSandboxId, config, sandboxConfig, opts) => {
      const request = { pod_sandbox_id: podSandboxId, config: { ...config, envs: envsAsBytes(config.envs) }, sandbox_config: sandboxConfig };
      return (await call(service.CreateContainer, request, 'mutate', opts)).container_id;
    },
    startContainer: async (containerId, opts) => {
      await call(service.StartContainer, { container_id: containerId }, 'mutate', opts);
    },
    stopContainer: async (containerId, timeoutSeconds, opts) => {
      const timeoutMs = opts?.timeoutMs ?? stopContainerDeadlineMs(deadlines, timeoutSeconds);
      await unaryCall(channel.client(), service.StopContainer, { container_id: containerId, timeout: timeoutSeconds }, timeoutMs);
    },
    removeContainer: async (containerId, opts) => {
      await call(service.RemoveContainer, { container_id: containerId }, 'mutate', opts);
    },
    listContainers: async (filter, opts) =>
      listedContainers((await call(service.ListContainers, { filter }, 'read', opts)).containers),
    containerStatus: async (containerId, verbose = false, opts) =>
      completeContainerStatus(await call(service.ContainerStatus, { container_id: containerId, verbose }, 'read', opts)),
    execSync: (containerId, cmd, timeoutSeconds, opts) => {
      const timeoutMs = opts?.timeoutMs ?? execSyncDeadlineMs(deadlines, timeoutSeconds);
      return unaryCall(channel.client(), service.ExecSync, { container_id: containerId, cmd, timeout: timeoutSeconds }, timeoutMs);
    },

    updateContainerResources: async (containerId, linux, opts) => {
      await call(service.UpdateContainerResources, { container_id: containerId, linux }, 'mutate', opts);
    },
    reopenContainerLog: async (containerId, opts) => {
      await call(service.ReopenContainerLog, { container_id: containerId }, 'mutate', opts);
    },
    // Stats can make the runtime walk cgroups and filesystems: the long deadline, as in Go.
    containerStats: async (containerId, opts) =>
      (await call(service.ContainerStats, { container_id: containerId }, 'mutate', opts)).stats,
    listContainerStats: async (filter, opts) =>
      (await call(service.ListContainerStats, { filter }, 'mutate', opts)).stats,
    podSandboxStats: async (podSandboxId, opts) =>
      (await call(service.PodSandboxStats, { pod_sandbox_id: podSandboxId }, 'mutate', opts)).stats,
    listPodSandboxStats: async (filter, opts) =>
      (await call(service.ListPodSandboxStats, { filter }, 'mutate', opts)).stats,
    updateRuntimeConfig: async (podCidr, opts) => {
      await call(service.UpdateRuntimeConfig, { runtime_config: { network_config: { pod_cidr: podCidr } } }, 'mutate', opts);
    },
    runtimeConfig: async (opts) => (await call(service.RuntimeConfig, {}, 'read', opts)).linux,
    // Streaming: the runtime only registers the session and answers its URL; Go gives these calls
    // --runtime-request-timeout like any other.
    exec: async (request, opts) => (await call(service.Exec, request, 'mutate', opts)).url,
    attach: async (request, opts) => (await call(service.Attach, request, 'mutate', opts)).url,
    portForward: async (podSandboxId, ports, opts) =>
      (await call(service.PortForward, { pod_sandbox_id: podSandboxId, port: ports }, 'mutate', opts)).url,
  };
}
