/**
 * What kubelet-ts does with each KubeletConfiguration field it accepts. The decoder takes every
 * v1beta1 field, as Go does, so a kubeadm-written file loads; this table says which of them change
 * nothing here, so that none of them is silently ignored:
 * - `honoured`: acted on as the Go kubelet acts on it;
 * - `ignored`: accepted and not acted on; a value other than the default gets one warning line at
 *   start-up (or when `warnWhen` says), naming the field and what the Go kubelet would do;
 * - `refused`: ignoring it would silently weaken isolation or put data at risk, so a value other
 *   than the default (or one of `refuseWhen`'s) stops start-up until the feature is built.
 * Typed over every field of KubeletConfiguration: a field added to the type without a decision
 * fails `tsc`, and one added to the schema fails the table's test.
 */
import type { KubeletConfiguration } from './types.js';

export type Support =
  | { kind: 'honoured' }
  | { kind: 'ignored'; goWould: string; parts?: readonly string[]; warnWhen?: (value: unknown) => boolean }
  | { kind: 'refused'; goWould: string; refuseWhen?: { values: string; test: (value: unknown) => boolean } };

export type ConfigField = Exclude<keyof KubeletConfiguration, 'apiVersion' | 'kind'>;

const honoured = { kind: 'honoured' } as const;
const ignored = (goWould: string, parts?: readonly string[]): Support => ({ kind: 'ignored', goWould, ...(parts ? { parts } : {}) });
const ignoredWhen = (goWould: string, warnWhen: (value: unknown) => boolean): Support => ({ kind: 'ignored', goWould, warnWhen });
const refused = (goWould: string, refuseWhen?: { values: string; test: (value: unknown) => boolean }): Support => ({ kind: 'refused', goWould, ...(refuseWhen ? { refuseWhen } : {}) });

export const FIELD_SUPPORT: { readonly [F in ConfigField]: Support } = {
  enableServer: honoured,
  staticPodPath: honoured,
  podLogsDir: honoured,
  syncFrequency: honoured,
  fileCheckFrequency: honoured,
  httpCheckFrequency: honoured,
  staticPodURL: honoured,
  staticPodURLHeader: honoured,
  address: honoured,
  port: honoured,
  readOnlyPort: honoured,
  tlsCertFile: honoured,
  tlsPrivateKeyFile: honoured,
  tlsCipherSuites: honoured,
  tlsCurvePreferences: ignored('offer only these elliptic curves in the kubelet server\'s TLS handshakes'),
  tlsMinVersion: honoured,
  rotateCertificates: honoured,
  serverTLSBootstrap: honoured,
  authentication: honoured,
  authorization: honoured,
  registryPullQPS: ignored('limit image pulls to this many per second'),
  registryBurst: ignored('allow bursts of this many image pulls'),
  imagePullCredentialsVerificationPolicy: refused(
    'check that a pod may use an image pulled earlier with another pod\'s credentials',
    // NeverVerify is what kubelet-ts does; the stricter policies would be silently weakened.
    { values: '`AlwaysVerify`, `NeverVerifyAllowlistedImages`', test: (value) => value === 'AlwaysVerify' || value === 'NeverVerifyAllowlistedImages' },
  ),
  preloadedImagesVerificationAllowlist: ignored('exempt these images from pull-credential verification'),
  eventRecordQPS: honoured,
  eventBurst: honoured,
  enableDebuggingHandlers: honoured,
  enableContentionProfiling: ignored('record lock contention for /debug/pprof'),
  healthzPort: honoured,
  healthzBindAddress: honoured,
  oomScoreAdj: honoured,
  clusterDomain: honoured,
  clusterDNS: honoured,
  streamingConnectionIdleTimeout: honoured,
  nodeStatusUpdateFrequency: honoured,
  nodeStatusReportFrequency: honoured,
  nodeLeaseDurationSeconds: honoured,
  imageMinimumGCAge: honoured,
  imageMaximumGCAge: honoured,
  imageGCHighThresholdPercent: honoured,
  imageGCLowThresholdPercent: honoured,
  volumeStatsAggPeriod: honoured,
  kubeletCgroups: honoured,
  systemCgroups: honoured,
  cgroupRoot: honoured,
  cgroupsPerQOS: honoured,
  cgroupDriver: honoured,
  cpuManagerPolicy: honoured,
  singleProcessOOMKill: ignored('let the OOM killer kill one process of a container instead of the whole container (memory.oom.group)'),
  cpuManagerPolicyOptions: honoured,
  cpuManagerReconcilePeriod: honoured,
  draManagerReconcilePeriod: ignored('reconcile dynamic resource allocation claims at this period'),
  memoryManagerPolicy: honoured,
  topologyManagerPolicy: honoured,
  topologyManagerScope: honoured,
  topologyManagerPolicyOptions: honoured,
  qosReserved: ignored('reserve memory for higher QoS classes in the QoS cgroups'),
  runtimeRequestTimeout: honoured,
  hairpinMode: ignored('configure hairpin traffic on the pod bridge (with CRI runtimes, the runtime\'s network plugin does)'),
  maxPods: honoured,
  podCIDR: honoured,
  podPidsLimit: honoured,
  resolvConf: honoured,
  runOnce: honoured,
  cpuCFSQuota: honoured,
  cpuCFSQuotaPeriod: honoured,
  nodeStatusMaxImages: honoured,
  maxOpenFiles: ignored('raise its own open-file limit (RLIMIT_NOFILE) to this number'),
  contentType: honoured,
  kubeAPIQPS: honoured,
  kubeAPIBurst: honoured,
  serializeImagePulls: ignored('pull one image at a time'),
  maxParallelImagePulls: ignored('pull at most this many images at once'),
  evictionHard: honoured,
  evictionSoft: honoured,
  evictionSoftGracePeriod: honoured,
  evictionPressureTransitionPeriod: honoured,
  evictionMaxPodGracePeriod: honoured,
  evictionMinimumReclaim: honoured,
  mergeDefaultEvictionSettings: honoured,
  podsPerCore: ignored('cap maxPods at podsPerCore times the number of cores'),
  enableControllerAttachDetach: honoured,
  protectKernelDefaults: honoured,
  makeIPTablesUtilChains: ignored('create the KUBE-FIREWALL and KUBE-MARK iptables chains'),
  iptablesMasqueradeBit: ignored('mark packets for SNAT with this fwmark bit'),
  iptablesDropBit: ignored('mark packets to drop with this fwmark bit'),
  featureGates: honoured,
  // kubelet-ts never looks at swap, which is what `false` asks for: only the default goes unhonoured.
  failSwapOn: ignoredWhen('refuse to start while swap is on (the default, true)', () => false),
  memorySwap: refused(
    'limit Burstable pods\' swap in proportion to their memory request (LimitedSwap)',
    { values: '`swapBehavior: LimitedSwap`', test: (value) => (value as { swapBehavior?: unknown } | null)?.swapBehavior === 'LimitedSwap' },
  ),
  containerLogMaxSize: honoured,
  containerLogMaxFiles: honoured,
  containerLogMaxWorkers: honoured,
  containerLogMonitorInterval: honoured,
  configMapAndSecretChangeDetectionStrategy: honoured,
  systemReserved: honoured,
  kubeReserved: honoured,
  reservedSystemCPUs: honoured,
  showHiddenMetricsForVersion: ignored('show the metrics hidden since that version'),
  systemReservedCgroup: honoured,
  kubeReservedCgroup: honoured,
  enforceNodeAllocatable: honoured,
  allowedUnsafeSysctls: honoured,
  volumePluginDir: ignored('look for FlexVolume drivers in this directory'),
  providerID: ignored('set the Node\'s spec.providerID, which cloud controllers match the machine by'),
  kernelMemcgNotification: ignored('learn of memory pressure from the kernel\'s memcg notifications, not only by polling'),
  logging: ignored('log with these options (kubelet-ts writes JSON lines to stderr at the verbosity of --v)', ['format', 'flushFrequency', 'vmodule', 'options']),
  enableSystemLogHandler: honoured,
  enableSystemLogQuery: honoured,
  shutdownGracePeriod: honoured,
  shutdownGracePeriodCriticalPods: honoured,
  shutdownGracePeriodByPodPriority: honoured,
  crashLoopBackOff: honoured,
  reservedMemory: honoured,
  enableProfilingHandler: honoured,
  enableDebugFlagsHandler: ignored('serve /debug/flags/v to change the log verbosity at run time'),
  seccompDefault: honoured,
  memoryThrottlingFactor: ignored('throttle memory at this fraction of the limit (MemoryQoS, cgroup v2 memory.high)'),
  memoryReservationPolicy: ignored('reserve pods\' memory requests with this policy'),
  registerWithTaints: honoured,
  registerNode: honoured,
  tracing: ignored('export OpenTelemetry traces of its API and runtime calls'),
  // false does turn off the eviction of pods over their local storage limits; the capacity is still reported.
  localStorageCapacityIsolation: ignored('with false: report no ephemeral-storage capacity'),
  containerRuntimeEndpoint: honoured,
  imageServiceEndpoint: honoured,
  failCgroupV1: honoured,
  userNamespaces: ignored('give each pod with hostUsers: false this many IDs in its user namespace'),
};

/** The fields the table does not call honoured, in table order. */
export function unhonouredFields(): [ConfigField, Exclude<Support, { kind: 'honoured' }>][] {
  return (Object.entries(FIELD_SUPPORT) as [ConfigField, Support][]).filter(
    (entry): entry is [ConfigField, Exclude<Support, { kind: 'honoured' }>] => entry[1].kind !== 'honoured',
  );
}
