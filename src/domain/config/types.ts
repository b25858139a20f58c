/**
 * The kubelet's two configuration halves, as in the Go kubelet:
 * - KubeletConfiguration: the `kubelet.config.k8s.io/v1beta1` document (file, drop-ins, flags),
 *   field names exactly as its JSON. Durations are Go-format strings (`1m0s`), quantities strings.
 *   In the effective (defaulted) configuration every field is present; `null` stands for a Go
 *   pointer left nil (the field is unset and has no default).
 * - KubeletFlags: what only the command line sets (cmd/kubelet/app/options KubeletFlags).
 */
import type { Taint } from '../api/common-types.js';

export const KUBELET_CONFIG_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const KUBELET_CONFIG_KIND = 'KubeletConfiguration';

/** One validation or decoding problem, naming the field first-class. */
export interface FieldError {
  /** The field's JSON path (`maxPods`, `authentication.anonymous.enabled`) or a flag (`--node-labels`). */
  field: string;
  /** The offending value, as given. */
  value: unknown;
  /** What is wrong, without the field name. */
  message: string;
}

export interface MemoryReservation {
  numaNode: number;
  limits: Record<string, string>;
}

export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

export interface VModuleItem {
  filePattern: string;
  verbosity: number;
}

export interface LoggingConfiguration {
  format: string;
  flushFrequency: string;
  verbosity: number;
  vmodule: VModuleItem[];
  options: {
    text: { splitStream: boolean; infoBufferSize: string };
    json: { splitStream: boolean; infoBufferSize: string };
  };
}

export interface TracingConfiguration {
  endpoint?: string;
  samplingRatePerMillion?: number;
}

export interface KubeletConfiguration {
  apiVersion: typeof KUBELET_CONFIG_API_VERSION;
  kind: typeof KUBELET_CONFIG_KIND;
  enableServer: boolean;
  staticPodPath: string;
  podLogsDir: string;
  syncFrequency: string;
  fileCheckFrequency: string;
  httpCheckFrequency: string;
  staticPodURL: string;
  staticPodURLHeader: Record<string, string[]>;
  address: string;
  port: number;
  readOnlyPort: number;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tlsCipherSuites: string[];
  tlsCurvePreferences: number[];
  tlsMinVersion: string;
  rotateCertificates: boolean;
  serverTLSBootstrap: boolean;
  authentication: {
    x509: { clientCAFile: string };
    webhook: { enabled: boolean; cacheTTL: string };
    anonymous: { enabled: boolean };
  };
  authorization: {
    mode: string;
    webhook: { cacheAuthorizedTTL: string; cacheUnauthorizedTTL: string };
  };
  registryPullQPS: number;
  registryBurst: number;
  imagePullCredentialsVerificationPolicy: string;
  preloadedImagesVerificationAllowlist: string[];
  eventRecordQPS: number;
  eventBurst: number;
  enableDebuggingHandlers: boolean;
  enableContentionProfiling: boolean;
  healthzPort: number;
  healthzBindAddress: string;
  oomScoreAdj: number;
  clusterDomain: string;
  clusterDNS: string[];
  streamingConnectionIdleTimeout: string;
  nodeStatusUpdateFrequency: string;
  nodeStatusReportFrequency: string;
  nodeLeaseDurationSeconds: number;
  imageMinimumGCAge: string;
  imageMaximumGCAge: string;
  imageGCHighThresholdPercent: number;
  imageGCLowThresholdPercent: number;
  volumeStatsAggPeriod: string;
  kubeletCgroups: string;
  systemCgroups: string;
  cgroupRoot: string;
  cgroupsPerQOS: boolean;
  cgroupDriver: string;
  cpuManagerPolicy: string;
  singleProcessOOMKill: boolean | null;
  cpuManagerPolicyOptions: Record<string, string>;
  cpuManagerReconcilePeriod: string;
  draManagerReconcilePeriod: string;
  memoryManagerPolicy: string;
  topologyManagerPolicy: string;
  topologyManagerScope: string;
  topologyManagerPolicyOptions: Record<string, string>;
  qosReserved: Record<string, string>;
  runtimeRequestTimeout: string;
  hairpinMode: string;
  maxPods: number;
  podCIDR: string;
  podPidsLimit: number;
  resolvConf: string;
  runOnce: boolean;
  cpuCFSQuota: boolean;
  cpuCFSQuotaPeriod: string;
  nodeStatusMaxImages: number;
  maxOpenFiles: number;
  contentType: string;
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls: number | null;
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionPressureTransitionPeriod: string;
  evictionMaxPodGracePeriod: number;
  evictionMinimumReclaim: Record<string, string>;
  mergeDefaultEvictionSettings: boolean;
  podsPerCore: number;
  enableControllerAttachDetach: boolean;
  protectKernelDefaults: boolean;
  makeIPTablesUtilChains: boolean;
  iptablesMasqueradeBit: number;
  iptablesDropBit: number;
  featureGates: Record<string, boolean>;
  failSwapOn: boolean;
  memorySwap: { swapBehavior: string };
  containerLogMaxSize: string;
  containerLogMaxFiles: number;
  containerLogMaxWorkers: number;
  containerLogMonitorInterval: string;
  configMapAndSecretChangeDetectionStrategy: string;
  systemReserved: Record<string, string>;
  kubeReserved: Record<string, string>;
  reservedSystemCPUs: string;
  showHiddenMetricsForVersion: string;
  systemReservedCgroup: string;
  kubeReservedCgroup: string;
  enforceNodeAllocatable: string[];
  allowedUnsafeSysctls: string[];
  volumePluginDir: string;
  providerID: string;
  kernelMemcgNotification: boolean;
  logging: LoggingConfiguration;
  enableSystemLogHandler: boolean;
  enableSystemLogQuery: boolean;
  shutdownGracePeriod: string;
  shutdownGracePeriodCriticalPods: string;
  shutdownGracePeriodByPodPriority: ShutdownGracePeriodByPodPriority[];
  crashLoopBackOff: { maxContainerRestartPeriod: string | null };
  reservedMemory: MemoryReservation[];
  enableProfilingHandler: boolean;
  enableDebugFlagsHandler: boolean;
  seccompDefault: boolean;
  memoryThrottlingFactor: number;
  memoryReservationPolicy: string;
  registerWithTaints: Taint[];
  registerNode: boolean;
  tracing: TracingConfiguration | null;
  localStorageCapacityIsolation: boolean;
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
  failCgroupV1: boolean;
  userNamespaces: { idsPerPod: number | null } | null;
}

/** Recursively optional: what a file, a drop-in or the command line gives before defaulting. */
export type DeepPartial<T> = T extends (infer U)[] ? U[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> | null } : T;

export type KubeletConfigurationDocument = DeepPartial<KubeletConfiguration>;

/**
 * Command-line-only settings (Go: KubeletFlags and ContainerRuntimeOptions), plus kubelet-ts's own
 * flags. Field names follow the Go struct fields in lowerCamelCase.
 */
export interface KubeletFlags {
  kubeletConfigFile: string;
  kubeletDropinConfigDirectory: string;
  kubeconfig: string;
  bootstrapKubeconfig: string;
  hostnameOverride: string;
  /** Raw `--node-ip` (one IP or a comma-separated dual-stack pair); validated at runKubelet.validateNodeIP. */
  nodeIP: string;
  certDirectory: string;
  cloudProvider: string;
  cloudConfigFile: string;
  rootDirectory: string;
  nodeLabels: Record<string, string>;
  lockFilePath: string;
  exitOnLockContention: boolean;
  runtimeCgroups: string;
  podInfraContainerImage: string;
  imageCredentialProviderConfigPath: string;
  imageCredentialProviderBinDir: string;
  experimentalMounterPath: string;
  experimentalNodeAllocatableIgnoreEvictionThreshold: boolean;
  minimumGCAge: string;
  maxPerPodContainerCount: number;
  maxContainerCount: number;
  registerSchedulable: boolean;
  keepTerminatedPodVolumes: boolean;
  /**
   * `--seccomp-default`: a KubeletFlags field in Go, not the config's; the kubelet runs with
   * RuntimeDefault when this OR the configuration's seccompDefault is true.
   */
  seccompDefault: boolean;
  /** cAdvisor's housekeeping interval (the one cAdvisor flag the kubelet still registers). */
  housekeepingInterval: string;
  /** kubelet-ts: event journal path; empty turns the journal off. Default `<root-dir>/events/`. */
  eventLog: string;
  /** kubelet-ts: the device plugin API's directory (kubelet.sock, the checkpoint); Go's fixed path by default. */
  devicePluginsDir: string;
  /** kubelet-ts: debug server (visualizer, /debug/actors) address; empty turns it off. */
  debugAddress: string;
  /** kubelet-ts: let the embedded runtime run pods in cluster mode (it has no isolation). */
  embeddedRuntimeAllowCluster: boolean;
}
