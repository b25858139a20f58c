/**
 * The Kubernetes core/v1 Pod as plain JSON, as a manifest file or the API server gives it.
 *
 * Only what a kubelet reads is declared. Field names and casing are the API's own (camelCase), so a
 * parsed manifest or a watch event is usable as is. Everything the API server may omit is optional;
 * defaulting (restartPolicy Always, terminationGracePeriodSeconds 30, imagePullPolicy by tag…) is
 * the pod sources' job, and the consumers here fall back to the same defaults when a field is absent.
 * Quantities (`resources`) stay strings ("100m", "128Mi"); `quantity.ts` parses them.
 */
import type { ConditionStatus, ObjectMeta } from '../api/common-types.js';
import type { Volume } from '../volumes/sources.js';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export type DNSPolicy = 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None';
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
export type PodQOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';
export type ContainerProtocol = 'TCP' | 'UDP' | 'SCTP';
export type TerminationMessagePolicy = 'File' | 'FallbackToLogsOnError';

/** A resource name ("cpu", "memory", "ephemeral-storage", extended resources) to a quantity string. */
export type ResourceList = Record<string, string>;

export interface ObjectFieldSelector { apiVersion?: string; fieldPath: string }
export interface ResourceFieldSelector { containerName?: string; resource: string; divisor?: string }
export interface KeySelector { name?: string; key: string; optional?: boolean }

export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: KeySelector;
  secretKeyRef?: KeySelector;
  /** EnvFiles (v1.35 beta): a key of a file in an emptyDir volume, read when the container is created (env-files.ts). */
  fileKeyRef?: { volumeName?: string; path?: string; key?: string; optional?: boolean };
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  protocol?: ContainerProtocol;
  hostIP?: string;
}

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
  /** Dynamic resource allocation: the pod's resourceClaims this container uses. */
  claims?: { name: string; request?: string }[];
}

export interface Capabilities { add?: string[]; drop?: string[] }

export interface SELinuxOptions { user?: string; role?: string; type?: string; level?: string }
export interface SeccompProfile { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostProfile?: string }
/** Read only by Windows nodes; a Linux kubelet validates it as the API server does and sends none of it. */
export interface WindowsSecurityContextOptions { gmsaCredentialSpecName?: string; gmsaCredentialSpec?: string; runAsUserName?: string; hostProcess?: boolean }

export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: Capabilities;
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  procMount?: 'Default' | 'Unmasked';
  windowsOptions?: WindowsSecurityContextOptions;
}

export interface Sysctl { name: string; value: string }

export interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  supplementalGroups?: number[];
  fsGroup?: number;
  sysctls?: Sysctl[];
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  windowsOptions?: WindowsSecurityContextOptions;
  fsGroupChangePolicy?: string;
  /** Merge (unset) adds the image's groups of the user; Strict needs a runtime that reports it can. */
  supplementalGroupsPolicy?: 'Merge' | 'Strict';
}

export interface ExecAction { command?: string[] }
export interface HTTPHeader { name: string; value: string }
export interface HTTPGetAction {
  path?: string;
  /** A number or the name of a container port. */
  port: number | string;
  host?: string;
  scheme?: 'HTTP' | 'HTTPS';
  httpHeaders?: HTTPHeader[];
}
export interface TCPSocketAction { port: number | string; host?: string }
export interface GRPCAction { port: number; service?: string }
export interface SleepAction { seconds: number }

/** A lifecycle hook's handler: exactly one of these is set. */
export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: SleepAction;
}

export interface Lifecycle { postStart?: LifecycleHandler; preStop?: LifecycleHandler }

export interface Probe {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export type MountPropagationMode = 'None' | 'HostToContainer' | 'Bidirectional';

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  subPathExpr?: string;
  mountPropagation?: MountPropagationMode;
  /** A read-only mount made read-only all the way down (its submounts too); see recursive-read-only.ts. */
  recursiveReadOnly?: 'Disabled' | 'IfPossible' | 'Enabled';
}

/** A raw block volume given to a container as a device node at `devicePath`. */
export interface VolumeDevice {
  name: string;
  devicePath: string;
}

/** Whether an in-place change of `resourceName` needs the container restarted. */
export interface ContainerResizePolicy {
  resourceName: 'cpu' | 'memory' | string;
  restartPolicy: 'NotRequired' | 'RestartContainer' | string;
}

export interface Container {
  name: string;
  image: string;
  imagePullPolicy?: PullPolicy;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: ResourceRequirements;
  /** How a change of each resource is applied in place (InPlacePodVerticalScaling); absent: NotRequired for all. */
  resizePolicy?: ContainerResizePolicy[];
  /**
   * On init containers "Always" makes it a sidecar (a restartable init container); on any container
   * (ContainerRestartRules, v1.35 beta) it overrides the pod's restart policy for this container.
   */
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** ContainerRestartRules (v1.35 beta): the first matching rule decides a restart on exit (pod/restart-rules.ts). */
  restartPolicyRules?: ContainerRestartRule[];
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  securityContext?: SecurityContext;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  terminationMessagePath?: string;
  terminationMessagePolicy?: TerminationMessagePolicy;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

/**
 * A debugging container added to a running pod through the pods/ephemeralcontainers subresource:
 * started once, never restarted; the API server refuses ports, probes, resources and lifecycle on it.
 */
export interface EphemeralContainer extends Container {
  /** A container of the pod whose process namespace it joins (when the runtime can). */
  targetContainerName?: string;
}

export type { Volume };

export interface PodDNSConfigOption { name: string; value?: string }
export interface PodDNSConfig { nameservers?: string[]; searches?: string[]; options?: PodDNSConfigOption[] }

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

export interface HostAlias { ip: string; hostnames?: string[] }

/** `Gt`/`Lt` compare integers. A manifest may hold any other text: such a requirement matches nothing, as Go's parser makes it. */
export type NodeSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface NodeSelectorRequirement {
  key: string;
  operator: NodeSelectorOperator;
  values?: string[];
}

/** Its matchExpressions (on labels) and matchFields (on `metadata.name`) are ANDed. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** Its terms are ORed. */
export interface NodeSelector { nodeSelectorTerms: NodeSelectorTerm[] }

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  /** The scheduler's business (scoring): kept as given, never read by the kubelet. */
  preferredDuringSchedulingIgnoredDuringExecution?: unknown[];
}

/** Only node affinity matters to a kubelet; pod (anti-)affinity is the scheduler's. */
export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: unknown;
  podAntiAffinity?: unknown;
}

export interface PodOS { name: string }

/** One of a container's restartPolicyRules: `action` when the exit code meets `exitCodes`. */
export interface ContainerRestartRule {
  /** 'Restart'; any other action is left to the container's restart policy. */
  action: 'Restart' | string;
  exitCodes?: { operator: 'In' | 'NotIn' | string; values?: number[] };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: RestartPolicy;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: DNSPolicy;
  dnsConfig?: PodDNSConfig;
  nodeName?: string;
  serviceAccountName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  shareProcessNamespace?: boolean;
  /** false: the pod runs in a user namespace of its own (UserNamespacesSupport). */
  hostUsers?: boolean;
  hostname?: string;
  /** HostnameOverride (v1.35 beta): the pod's hostname as given, with no domain. */
  hostnameOverride?: string;
  subdomain?: string;
  setHostnameAsFQDN?: boolean;
  hostAliases?: HostAlias[];
  securityContext?: PodSecurityContext;
  volumes?: Volume[];
  priority?: number;
  priorityClassName?: string;
  runtimeClassName?: string;
  schedulerName?: string;
  enableServiceLinks?: boolean;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  os?: PodOS;
  /** RuntimeClass overhead: added to the pod's requests. */
  overhead?: ResourceList;
  /** Pod-level resources (cpu, memory, hugepages-*): when requested, they stand for the containers' sum. */
  resources?: ResourceRequirements;
  /** Conditions, set by others through the status subresource, that must be True for the pod to be Ready. */
  readinessGates?: PodReadinessGate[];
  /** Dynamic resource allocation's claims: prepared in cluster mode, refused standalone (lacked-features.ts). */
  resourceClaims?: { name: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
}

export interface PodReadinessGate { conditionType: string }

/** A claim made from a template for the pod: its name, absent when none was needed. */
export interface PodResourceClaimStatus { name: string; resourceClaimName?: string }

export interface PodCondition {
  type: string;
  /** The pod's metadata.generation the kubelet had when it set the condition (v1.35, GA). */
  observedGeneration?: number;
  status: ConditionStatus;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ContainerStateWaiting { reason?: string; message?: string }
export interface ContainerStateRunning { startedAt?: string }
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

/** A container's volume mount as its status shows it. */
export interface VolumeMountStatus { name: string; mountPath: string; readOnly?: boolean; recursiveReadOnly?: 'Disabled' | 'Enabled' }

export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  volumeMounts?: VolumeMountStatus[];
  /** What the container runs with (in-place resize): the allocated values, the runtime's where it reports them. */
  resources?: ResourceRequirements;
  /** The requests allocated to it. */
  allocatedResources?: ResourceList;
}

export interface PodIP { ip: string }

export interface PodStatus {
  /** The pod's metadata.generation the kubelet last wrote a status for (v1.35, GA). */
  observedGeneration?: number;
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: PodIP[];
  podIP?: string;
  podIPs?: PodIP[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: PodQOSClass;
  /** Set by the resource claim controller and the scheduler; kept as they are (merge-status.ts). */
  resourceClaimStatuses?: PodResourceClaimStatus[];
  extendedResourceClaimStatus?: unknown;
}

export interface Pod {
  apiVersion?: 'v1';
  kind?: 'Pod';
  /** Every pod the kubelet holds has a name and a uid: the pod sources see to it. */
  metadata: ObjectMeta & { name: string; uid: string };
  spec: PodSpec;
  status?: PodStatus;
}
