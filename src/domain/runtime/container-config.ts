/**
 * Pod + Container → the CRI PodSandboxConfig and ContainerConfig, as the Go kubelet builds them
 * (kuberuntime_sandbox.go generatePodSandboxConfig, kuberuntime_container.go generateContainerConfig,
 * kuberuntime_container_linux.go generateLinuxContainerConfig).
 *
 * Mounts come ready made (the runtime manager's makeContainerMounts: volumes, /etc/hosts, the
 * termination-message file); the security contexts from security-context.ts. The runtime handler
 * and the user namespace are resolved by the runtime manager (they need the API and the runtime) and
 * come in on the context. Devices are a claim's raw block volumes and the device plugins' devices; a
 * DRA claim's devices go as CDI names. Not built yet (Go does): hugepages, swap.
 */
import type { ContainerDeviceRuntime } from '../device-manager/container-allocation.js';
import { containerLogPath, podLogDirectory } from '../pod/pod-paths.js';
import type { Container, Pod } from '../pod/types.js';
import type { CriContainerConfig, CriDevice, CriLinuxContainerSecurityContext, CriMount, CriPodSandboxConfig, CriUserNamespace } from './cri-config.js';
import { withNamespaceTarget } from './ephemeral-containers.js';
import { podDnsConfig, podHostname, type DnsContext } from './dns.js';
import { expandCommandAndArgs, makeEnvironmentVariables, type EnvContext, type EnvSourceLookup } from './env.js';
import { newContainerAnnotations, newContainerLabels, newPodAnnotations, newPodLabels } from './labels.js';
import { podPortMappings } from './port-mappings.js';
import { linuxContainerResources } from './resources.js';
import { sandboxOverhead, sandboxResources } from './sandbox-resources.js';
import { seccompProfileRoot, type SeccompPolicy } from './seccomp.js';
import { containerSecurityContext, sandboxSecurityContext } from './security-context.js';

/** What the node contributes to a pod's runtime configuration. */
export interface NodeRuntimeContext {
  /** --pod-logs-dir, /var/log/pods by default. */
  podLogsDir: string;
  dns: DnsContext;
  /** The node's IPs, primary first (status.hostIP / status.hostIPs). */
  hostIPs: string[];
  /** Machine memory, for the Burstable oom_score_adj. */
  memoryCapacityBytes: number;
  nodeAllocatable?: Record<string, string>;
  cpuCfsQuota?: boolean;
  cpuCfsQuotaPeriodMicros?: number;
  serviceEnv?: ReadonlyMap<string, string>;
  lookup?: EnvSourceLookup;
  /** The env files of the container's `fileKeyRef`s, read before (env.ts). */
  envFiles?: EnvContext['envFiles'];
  /** seccompDefault and <root-dir>/seccomp. Default: off, under /var/lib/kubelet. */
  seccomp?: SeccompPolicy;
  /** The pod's user namespace (user-namespaces.ts), for its sandbox and containers alike; none: not sent. */
  userNamespace?: CriUserNamespace;
}

const defaultSeccompPolicy: SeccompPolicy = { runtimeDefault: false, profileRoot: seccompProfileRoot('/var/lib/kubelet') };

/** <podLogsDir>/<namespace>_<name>_<uid> (BuildPodLogsDirectory). */
export function podLogsDirectory(podLogsDir: string, pod: Pod): string {
  return podLogDirectory(podLogsDir, pod.metadata.namespace ?? 'default', pod.metadata.name, pod.metadata.uid);
}

export { containerLogPath };

/**
 * The restart count to resume from when the runtime has no status for a container (it lost its
 * state, e.g. after a reboot) but its log files remain: one past the highest `<n>.log` (or rotated
 * `<n>.log.<suffix>`) among the file names, 0 when there is none (calcRestartCountByLogDir). Keeps a
 * restarted container from overwriting its predecessor's log.
 */
export function restartCountFromLogFiles(fileNames: readonly string[]): number {
  let next = 0;
  for (const name of fileNames) {
    const match = /^(\d+)\.log(\..*)?$/.exec(name);
    if (match) next = Math.max(next, Number(match[1]) + 1);
  }
  return next;
}

export function generatePodSandboxConfig(pod: Pod, attempt: number, ctx: NodeRuntimeContext, cgroupParent?: string): CriPodSandboxConfig {
  const config: CriPodSandboxConfig = {
    metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace ?? 'default', uid: pod.metadata.uid, attempt },
    labels: newPodLabels(pod),
    annotations: newPodAnnotations(pod),
    dns_config: podDnsConfig(pod, ctx.dns),
    log_directory: podLogsDirectory(ctx.podLogsDir, pod),
    port_mappings: podPortMappings(pod),
    linux: { security_context: withUserNamespace(sandboxSecurityContext(pod, ctx.seccomp ?? defaultSeccompPolicy), ctx.userNamespace) },
  };
  const hostname = podHostname(pod, ctx.dns.clusterDomain);
  if (hostname !== undefined) config.hostname = hostname;
  if (cgroupParent !== undefined && config.linux) config.linux.cgroup_parent = cgroupParent;
  const sysctls = pod.spec.securityContext?.sysctls;
  if (sysctls && sysctls.length > 0 && config.linux) {
    // Sysctl names may use '/' as the separator; the runtime wants dots (ConvertPodSysctlsVariableToDotsSeparator).
    config.linux.sysctls = Object.fromEntries(sysctls.map((s) => [s.name.includes('/') ? s.name.replaceAll('/', '.') : s.name, s.value]));
  }
  if (config.linux) {
    // applySandboxResources: the pod's own resources and its overhead, each as container resources.
    const quota = { ...(ctx.cpuCfsQuota !== undefined ? { cpuCfsQuota: ctx.cpuCfsQuota } : {}), ...(ctx.cpuCfsQuotaPeriodMicros !== undefined ? { cpuCfsQuotaPeriodMicros: ctx.cpuCfsQuotaPeriodMicros } : {}) };
    config.linux.resources = sandboxResources(pod, quota);
    config.linux.overhead = sandboxOverhead(pod, quota);
  }
  return config;
}

export interface ContainerStartContext {
  restartCount: number;
  /** The image reference ImageStatus/PullImage resolved (an id or digest). */
  imageRef: string;
  /** The sandbox's IPs, primary first. */
  podIPs: string[];
  /** The container's mounts, in order. */
  mounts?: CriMount[];
  /** The container's raw block volumes, in order. */
  devices?: CriDevice[];
  /** An ephemeral container's target: the runtime id whose process namespace it joins. */
  namespaceTargetId?: string;
  /** The resource managers' cpuset (Go's PreCreateContainer): the CPUs and NUMA memory nodes, as cpuset strings. */
  cpuset?: { cpus?: string; mems?: string };
  /** The device plugins' Allocate answers for the container, merged: put before its own env, mounts, devices and annotations. */
  deviceRuntime?: ContainerDeviceRuntime;
  /** The CDI device ids of the DRA claims the container uses (Go's GetResources). */
  cdiDevices?: string[];
}

/** NamespacesForPod sets the user namespace on every namespace option it builds, the sandbox's and the containers'. */
function withUserNamespace<T extends { namespace_options?: CriLinuxContainerSecurityContext['namespace_options'] }>(sc: T, userns: CriUserNamespace | undefined): T {
  return userns && sc.namespace_options ? { ...sc, namespace_options: { ...sc.namespace_options, userns_options: userns } } : sc;
}

function targeted(sc: CriLinuxContainerSecurityContext, targetId: string | undefined): CriLinuxContainerSecurityContext {
  return sc.namespace_options ? { ...sc, namespace_options: withNamespaceTarget(sc.namespace_options, targetId) } : sc;
}

export function generateContainerConfig(pod: Pod, container: Container, start: ContainerStartContext, ctx: NodeRuntimeContext): CriContainerConfig {
  const env = makeEnvironmentVariables(pod, container, {
    podIPs: start.podIPs,
    hostIPs: ctx.hostIPs,
    ...(ctx.nodeAllocatable ? { nodeAllocatable: ctx.nodeAllocatable } : {}),
    ...(ctx.serviceEnv ? { serviceEnv: ctx.serviceEnv } : {}),
    ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    ...(ctx.envFiles ? { envFiles: ctx.envFiles } : {}),
  });
  // GenerateRunContainerOptions: the device plugins' variables come first, the container's after them.
  const dr = start.deviceRuntime;
  const allEnv = dr ? [...Object.entries(dr.envs).map(([name, value]) => ({ name, value })), ...env] : env;
  const config: CriContainerConfig = {
    metadata: { name: container.name, attempt: start.restartCount },
    image: { image: start.imageRef, user_specified_image: container.image },
    ...expandCommandAndArgs(container, allEnv),
    envs: allEnv.map((e) => ({ key: e.name, value: Buffer.from(e.value, 'utf8') })),
    labels: newContainerLabels(container, pod),
    annotations: { ...(dr?.annotations ?? {}), ...newContainerAnnotations(container, pod, start.restartCount) },
    log_path: containerLogPath(container.name, start.restartCount),
    stdin: container.stdin ?? false,
    stdin_once: container.stdinOnce ?? false,
    tty: container.tty ?? false,
    linux: {
      resources: linuxContainerResources(pod, container, {
        memoryCapacityBytes: ctx.memoryCapacityBytes,
        ...(ctx.cpuCfsQuota !== undefined ? { cpuCfsQuota: ctx.cpuCfsQuota } : {}),
        ...(ctx.cpuCfsQuotaPeriodMicros !== undefined ? { cpuCfsQuotaPeriodMicros: ctx.cpuCfsQuotaPeriodMicros } : {}),
      }),
      security_context: withUserNamespace(targeted(containerSecurityContext(pod, container, ctx.seccomp ?? defaultSeccompPolicy), start.namespaceTargetId), ctx.userNamespace),
    },
  };
  if (container.workingDir) config.working_dir = container.workingDir;
  const mounts = [...(dr?.mounts ?? []).map((m) => ({ container_path: m.containerPath, host_path: m.hostPath, readonly: m.readOnly, selinux_relabel: false })), ...(start.mounts ?? [])];
  const devices = [...(dr?.devices ?? []).map((d) => ({ container_path: d.containerPath, host_path: d.hostPath, permissions: d.permissions })), ...(start.devices ?? [])];
  if (mounts.length > 0) config.mounts = mounts;
  if (devices.length > 0) config.devices = devices;
  if (start.cpuset?.cpus && config.linux?.resources) config.linux.resources.cpuset_cpus = start.cpuset.cpus;
  if (start.cpuset?.mems && config.linux?.resources) config.linux.resources.cpuset_mems = start.cpuset.mems;
  if (start.cdiDevices && start.cdiDevices.length > 0) config.CDI_devices = start.cdiDevices.map((name) => ({ name }));
  return config;
}
