/**
 * The shape of the v1beta1 KubeletConfiguration document, as data: decoding (unknown fields, types),
 * defaulting (what counts as unset) and zero-filling all read this one description.
 *
 * `nullable` marks a Go pointer field: only absence (or JSON null) means unset, so `healthzPort: 0`
 * stays 0. A non-pointer field is unset when absent or at its zero value (`maxPods: 0` gets 110),
 * which is how Go's SetDefaults_KubeletConfiguration tells them apart.
 */

export type FieldKind =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'float'
  | 'duration'
  | 'quantity'
  | 'stringMap'
  | 'boolMap'
  | 'stringListMap'
  | 'stringList'
  | 'int32List'
  | 'object'
  | 'objectList';

export interface FieldSpec {
  kind: FieldKind;
  nullable?: boolean;
  /** Members of an `object`, or of each item of an `objectList`. */
  fields?: Record<string, FieldSpec>;
  /** Members of an object item that must be present (Go fields without omitempty in lists). */
  required?: string[];
}

const str: FieldSpec = { kind: 'string' };
const bool: FieldSpec = { kind: 'bool' };
const int32: FieldSpec = { kind: 'int32' };
const int64: FieldSpec = { kind: 'int64' };
const dur: FieldSpec = { kind: 'duration' };
const strMap: FieldSpec = { kind: 'stringMap' };
const strList: FieldSpec = { kind: 'stringList' };
const ptr = (spec: FieldSpec): FieldSpec => ({ ...spec, nullable: true });
const obj = (fields: Record<string, FieldSpec>, nullable = false): FieldSpec => ({ kind: 'object', fields, nullable });

export const LOGGING_SCHEMA: FieldSpec = obj({
  format: str,
  // component-base TimeOrMetaDuration: a duration string, or an integer of nanoseconds.
  flushFrequency: dur,
  verbosity: { kind: 'uint32' },
  vmodule: {
    kind: 'objectList',
    fields: { filePattern: str, verbosity: { kind: 'uint32' } },
    required: ['filePattern', 'verbosity'],
  },
  options: obj({
    text: obj({ splitStream: bool, infoBufferSize: { kind: 'quantity' } }),
    json: obj({ splitStream: bool, infoBufferSize: { kind: 'quantity' } }),
  }),
});

/** Every v1beta1 field, in the order of k8s.io/kubelet/config/v1beta1 types.go. */
export const KUBELET_CONFIGURATION_SCHEMA: Record<string, FieldSpec> = {
  enableServer: ptr(bool),
  staticPodPath: str,
  podLogsDir: str,
  syncFrequency: dur,
  fileCheckFrequency: dur,
  httpCheckFrequency: dur,
  staticPodURL: str,
  staticPodURLHeader: { kind: 'stringListMap' },
  address: str,
  port: int32,
  readOnlyPort: int32,
  tlsCertFile: str,
  tlsPrivateKeyFile: str,
  tlsCipherSuites: strList,
  tlsCurvePreferences: { kind: 'int32List' },
  tlsMinVersion: str,
  rotateCertificates: bool,
  serverTLSBootstrap: bool,
  authentication: obj({
    x509: obj({ clientCAFile: str }),
    webhook: obj({ enabled: ptr(bool), cacheTTL: dur }),
    anonymous: obj({ enabled: ptr(bool) }),
  }),
  authorization: obj({
    mode: str,
    webhook: obj({ cacheAuthorizedTTL: dur, cacheUnauthorizedTTL: dur }),
  }),
  registryPullQPS: ptr(int32),
  registryBurst: int32,
  imagePullCredentialsVerificationPolicy: str,
  preloadedImagesVerificationAllowlist: strList,
  eventRecordQPS: ptr(int32),
  eventBurst: int32,
  enableDebuggingHandlers: ptr(bool),
  enableContentionProfiling: bool,
  healthzPort: ptr(int32),
  healthzBindAddress: str,
  oomScoreAdj: ptr(int32),
  clusterDomain: str,
  clusterDNS: strList,
  streamingConnectionIdleTimeout: dur,
  nodeStatusUpdateFrequency: dur,
  nodeStatusReportFrequency: dur,
  nodeLeaseDurationSeconds: int32,
  imageMinimumGCAge: dur,
  imageMaximumGCAge: dur,
  imageGCHighThresholdPercent: ptr(int32),
  imageGCLowThresholdPercent: ptr(int32),
  volumeStatsAggPeriod: dur,
  kubeletCgroups: str,
  systemCgroups: str,
  cgroupRoot: str,
  cgroupsPerQOS: ptr(bool),
  cgroupDriver: str,
  cpuManagerPolicy: str,
  singleProcessOOMKill: ptr(bool),
  cpuManagerPolicyOptions: strMap,
  cpuManagerReconcilePeriod: dur,
  draManagerReconcilePeriod: dur,
  memoryManagerPolicy: str,
  topologyManagerPolicy: str,
  topologyManagerScope: str,
  topologyManagerPolicyOptions: strMap,
  qosReserved: strMap,
  runtimeRequestTimeout: dur,
  hairpinMode: str,
  maxPods: int32,
  podCIDR: str,
  podPidsLimit: ptr(int64),
  resolvConf: ptr(str),
  runOnce: bool,
  cpuCFSQuota: ptr(bool),
  cpuCFSQuotaPeriod: ptr(dur),
  nodeStatusMaxImages: ptr(int32),
  maxOpenFiles: int64,
  contentType: str,
  kubeAPIQPS: ptr(int32),
  kubeAPIBurst: int32,
  serializeImagePulls: ptr(bool),
  maxParallelImagePulls: ptr(int32),
  evictionHard: strMap,
  evictionSoft: strMap,
  evictionSoftGracePeriod: strMap,
  evictionPressureTransitionPeriod: dur,
  evictionMaxPodGracePeriod: int32,
  evictionMinimumReclaim: strMap,
  mergeDefaultEvictionSettings: ptr(bool),
  podsPerCore: int32,
  enableControllerAttachDetach: ptr(bool),
  protectKernelDefaults: bool,
  makeIPTablesUtilChains: ptr(bool),
  iptablesMasqueradeBit: ptr(int32),
  iptablesDropBit: ptr(int32),
  featureGates: { kind: 'boolMap' },
  failSwapOn: ptr(bool),
  memorySwap: obj({ swapBehavior: str }),
  containerLogMaxSize: str,
  containerLogMaxFiles: ptr(int32),
  containerLogMaxWorkers: ptr(int32),
  containerLogMonitorInterval: ptr(dur),
  configMapAndSecretChangeDetectionStrategy: str,
  systemReserved: strMap,
  kubeReserved: strMap,
  reservedSystemCPUs: str,
  showHiddenMetricsForVersion: str,
  systemReservedCgroup: str,
  kubeReservedCgroup: str,
  enforceNodeAllocatable: strList,
  allowedUnsafeSysctls: strList,
  volumePluginDir: str,
  providerID: str,
  kernelMemcgNotification: bool,
  logging: LOGGING_SCHEMA,
  enableSystemLogHandler: ptr(bool),
  enableSystemLogQuery: ptr(bool),
  shutdownGracePeriod: dur,
  shutdownGracePeriodCriticalPods: dur,
  shutdownGracePeriodByPodPriority: {
    kind: 'objectList',
    fields: { priority: int32, shutdownGracePeriodSeconds: int64 },
    required: ['priority', 'shutdownGracePeriodSeconds'],
  },
  crashLoopBackOff: obj({ maxContainerRestartPeriod: ptr(dur) }),
  reservedMemory: {
    kind: 'objectList',
    fields: { numaNode: int32, limits: strMap },
    required: ['numaNode', 'limits'],
  },
  enableProfilingHandler: ptr(bool),
  enableDebugFlagsHandler: ptr(bool),
  seccompDefault: ptr(bool),
  memoryThrottlingFactor: ptr({ kind: 'float' }),
  memoryReservationPolicy: str,
  registerWithTaints: {
    kind: 'objectList',
    fields: { key: str, value: str, effect: str, timeAdded: str },
    required: ['key', 'effect'],
  },
  registerNode: ptr(bool),
  tracing: obj({ endpoint: str, samplingRatePerMillion: int32 }, true),
  localStorageCapacityIsolation: ptr(bool),
  containerRuntimeEndpoint: str,
  imageServiceEndpoint: str,
  failCgroupV1: ptr(bool),
  userNamespaces: obj({ idsPerPod: ptr(int64) }, true),
};

/** The spec at a dotted path (`authentication.webhook.enabled`), or undefined if there is none. */
export function fieldSpecAt(path: string): FieldSpec | undefined {
  let fields: Record<string, FieldSpec> | undefined = KUBELET_CONFIGURATION_SCHEMA;
  let spec: FieldSpec | undefined;
  for (const part of path.split('.')) {
    spec = fields?.[part];
    if (spec === undefined) return undefined;
    fields = spec.fields;
  }
  return spec;
}

/** Go's zero value for a non-pointer field of this kind, as it appears in the JSON document. */
export function zeroValue(spec: FieldSpec): unknown {
  switch (spec.kind) {
    case 'string':
    case 'quantity':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'float':
      return 0;
    case 'duration':
      return '0s';
    case 'stringMap':
    case 'boolMap':
    case 'stringListMap':
      return {};
    case 'stringList':
    case 'int32List':
    case 'objectList':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(spec.fields ?? {})) out[name] = member.nullable ? null : zeroValue(member);
      return out;
    }
  }
}
