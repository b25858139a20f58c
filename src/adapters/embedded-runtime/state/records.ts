/**
 * What the embedded runtime persists per sandbox and per container (one JSON file each under
 * stateDir), enough to answer every CRI query and to adopt still-running containers after a restart.
 * Field names follow the CRI messages they feed.
 */
import type { ResourceConfig } from '../../../domain/cgroups/resource-config.js';
import type { ContainerMetadata__Output as ContainerMetadata } from '../../../generated/runtime/v1/ContainerMetadata.js';
import type { ImageSpec } from '../../../generated/runtime/v1/ImageSpec.js';
import type { Mount__Output as Mount } from '../../../generated/runtime/v1/Mount.js';
import type { PodSandboxMetadata__Output as PodSandboxMetadata } from '../../../generated/runtime/v1/PodSandboxMetadata.js';
import type { PodSandboxState__Output as PodSandboxState } from '../../../generated/runtime/v1/PodSandboxState.js';
import type { Labels } from '../../../ports/cri.js';
import type { ProcessIdentity } from '../shim/proc-stat.js';

export interface SandboxRecord {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  /** Epoch nanoseconds, decimal. */
  created_at: string;
  labels: Labels;
  annotations: Labels;
  log_directory: string;
  hostname: string;
  runtime_handler: string;
  /** linux.cgroup_parent: the pod cgroup its containers' cgroups go under ('' or absent: none). */
  cgroup_parent?: string;
  /**
   * PodSandboxConfig.port_mappings: the pod's declared ports, the only ones a port forward reaches
   * (port-forward-rules.ts). Absent in records written before it was kept: no port is forwarded.
   */
  port_mappings?: SandboxPortMapping[];
  /**
   * The kernel's boot id when the sandbox was created. A sandbox from an earlier boot is NOTREADY, as
   * containerd reports a sandbox whose pause container a reboot took away; the kubelet then recreates it.
   */
  boot_id?: string;
}

export interface SandboxPortMapping {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  container_port: number;
  host_port: number;
  host_ip: string;
}

/** CREATED → RUNNING → EXITED, as in CRI; UNKNOWN is never stored (we always know, see refresh). */
export type ContainerPhase = 'created' | 'running' | 'exited';

export interface ContainerRecord {
  id: string;
  pod_sandbox_id: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  image_ref: string;
  labels: Labels;
  annotations: Labels;
  /** The argv to run: command ++ args, with the image's default entrypoint when command is empty. */
  argv: string[];
  /** Env values are bytes in CRI; kept as UTF-8 text (a process environment is text). */
  env: Record<string, string>;
  working_dir: string;
  /** linux.security_context.run_as_user / run_as_group: the only part of a security context applied. */
  run_as_user?: number;
  run_as_group?: number;
  /** Absolute CRI log path, '' when the sandbox and container asked for none. */
  log_path: string;
  /** As CreateContainer gave them; applied in a mount namespace of the container's own (mount-plan.ts). */
  mounts: Mount[];
  /** Mount points StartContainer had to make on the host itself (outermost directory made); left there. */
  mount_points_created_on_host?: string[];
  /** ContainerConfig.stdin, stdin_once, tty: what an Attach may do (attach-session.ts). Absent in older records: false. */
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  phase: ContainerPhase;
  created_at: string;
  started_at: string;
  finished_at: string;
  exit_code: number;
  reason: string;
  message: string;
  /** The container's main process (its own process group leader) while it runs. */
  process?: ProcessIdentity;
  /** The detached shim that owns its output and records its exit. */
  shim?: ProcessIdentity;
  /** linux.resources as cgroup settings, applied when the sandbox names a cgroup parent. */
  resources?: ResourceConfig;
  /** The container's own cgroup (`<cgroup_parent>/<id>`), once started in one. */
  cgroup?: string;
}
