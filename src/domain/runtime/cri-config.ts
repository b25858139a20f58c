/**
 * The CRI v1 messages the domain builds (PodSandboxConfig, ContainerConfig), declared here because
 * the layering rule keeps domain/ from importing ports/. They mirror src/ports/cri.ts field for
 * field (snake_case, int64 as decimal strings, env values as Buffers); the runtime manager pins the
 * two together at compile time (src/actors/runtime-manager/cri-shape-pin.ts), so a drift in either
 * file fails `tsc`.
 */

export type CriNamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type CriProtocol = 'TCP' | 'UDP' | 'SCTP';

/** One contiguous range of IDs: container_id.. inside the namespace is host_id.. outside. */
export interface CriIdMapping { host_id: number; container_id: number; length: number }

/** runtime.v1 UserNamespace: NODE is the host's; POD a namespace of the pod's own with these mappings. */
export interface CriUserNamespace {
  mode: CriNamespaceMode;
  uids?: CriIdMapping[];
  gids?: CriIdMapping[];
}

export interface CriNamespaceOption {
  network: CriNamespaceMode;
  pid: CriNamespaceMode;
  ipc: CriNamespaceMode;
  /** The container whose namespace a TARGET mode joins. */
  target_id?: string;
  userns_options?: CriUserNamespace;
}
export interface CriInt64Value { value: string }
export interface CriKeyValue { key: string; value: Buffer }
export interface CriPortMapping { protocol: CriProtocol; container_port: number; host_port: number; host_ip: string }
export interface CriDNSConfig { servers: string[]; searches: string[]; options: string[] }

export interface CriLinuxContainerResources {
  cpu_period?: string;
  cpu_quota?: string;
  cpu_shares?: string;
  memory_limit_in_bytes?: string;
  oom_score_adj?: string;
  cpuset_cpus?: string;
  cpuset_mems?: string;
}

/** runtime.v1 SecurityProfile; localhost_ref is an absolute path on the node, only for Localhost. */
export interface CriSecurityProfile {
  profile_type: 'RuntimeDefault' | 'Unconfined' | 'Localhost';
  localhost_ref?: string;
}

/** runtime.v1 SELinuxOption: the SELinux label's four parts, empty when not set. */
export interface CriSELinuxOption { user: string; role: string; type: string; level: string }

export interface CriLinuxSandboxSecurityContext {
  namespace_options?: CriNamespaceOption;
  selinux_options?: CriSELinuxOption;
  run_as_user?: CriInt64Value | null;
  run_as_group?: CriInt64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: string[];
  privileged?: boolean;
  seccomp?: CriSecurityProfile;
}

export interface CriPodSandboxConfig {
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  hostname?: string;
  log_directory?: string;
  dns_config?: CriDNSConfig | null;
  port_mappings?: CriPortMapping[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: {
    cgroup_parent?: string;
    security_context?: CriLinuxSandboxSecurityContext;
    sysctls?: Record<string, string>;
    /** The pod's overhead (spec.overhead), as resources with requests equal to limits. */
    overhead?: CriLinuxContainerResources;
    /** The pod's own resources, its overhead left out. */
    resources?: CriLinuxContainerResources;
  };
}

export interface CriLinuxContainerSecurityContext {
  capabilities?: { add_capabilities?: string[]; drop_capabilities?: string[] } | null;
  privileged?: boolean;
  namespace_options?: CriNamespaceOption;
  selinux_options?: CriSELinuxOption;
  run_as_user?: CriInt64Value | null;
  run_as_group?: CriInt64Value | null;
  readonly_rootfs?: boolean;
  supplemental_groups?: string[];
  /** The AppArmor profile in the deprecated string form ("runtime/default", "localhost/<name>", "unconfined"). */
  apparmor_profile?: string;
  no_new_privs?: boolean;
  masked_paths?: string[];
  readonly_paths?: string[];
  seccomp?: CriSecurityProfile;
  /** The same AppArmor profile as a SecurityProfile; localhost_ref is the profile's name, not a path. */
  apparmor?: CriSecurityProfile;
}

/**
 * How a bind mount propagates (runtime.v1 MountPropagation). Enums travel by name here, as the
 * proto loader is set up to give them (`enums: String`, see src/generated/runtime/v1/MountPropagation.ts).
 */
export type CriMountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';

/** One bind mount into a container (runtime.v1 Mount); a status answers these back in `mounts`. */
export interface CriMount {
  container_path: string;
  host_path: string;
  readonly?: boolean;
  selinux_relabel?: boolean;
  propagation?: CriMountPropagation;
}

/** A host device in a container (runtime.v1 Device): permissions are cgroup device rights, `mrw` or `r`. */
export interface CriDevice {
  container_path: string;
  host_path: string;
  permissions: string;
}

export interface CriContainerConfig {
  metadata: { name: string; attempt: number };
  image: { image: string; annotations?: Record<string, string>; user_specified_image?: string };
  command?: string[];
  args?: string[];
  working_dir?: string;
  envs?: CriKeyValue[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  mounts?: CriMount[];
  devices?: CriDevice[];
  log_path?: string;
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  linux?: { resources?: CriLinuxContainerResources; security_context?: CriLinuxContainerSecurityContext };
  /** The CDI devices of the DRA claims the container uses ("<vendor>/<class>=<name>"). */
  CDI_devices?: { name: string }[];
}
