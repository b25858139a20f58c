/**
 * Defaulting of the v1beta1 KubeletConfiguration, following
 * pkg/kubelet/apis/config/v1beta1/defaults.go (SetDefaults_KubeletConfiguration) and
 * cmd/kubelet/app/options/options.go (NewKubeletConfiguration + applyLegacyDefaults) of the version
 * we claim. Differences from Go, on purpose:
 * - evictionHard gets its default map here (Go: DefaultEvictionHard, applied per OS); an explicit
 *   evictionHard replaces it entirely unless mergeDefaultEvictionSettings is true, which fills in the
 *   missing default signals, as the eviction manager does in Go.
 * - draManagerReconcilePeriod ("1m0s") and memoryReservationPolicy ("None") follow upstream main,
 *   whose validation requires them.
 */
import { zeroValue, KUBELET_CONFIGURATION_SCHEMA, type FieldSpec } from './schema.js';
import { isEnabled, type FeatureGates } from './feature-gates.js';
import { getAtPath, setAtPath } from './merge.js';
import {
  KUBELET_CONFIG_API_VERSION,
  KUBELET_CONFIG_KIND,
  type KubeletConfiguration,
  type KubeletConfigurationDocument,
} from './types.js';

/** Go's DefaultEvictionHard on Linux. */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
  'imagefs.inodesFree': '5%',
};

/** --pod-logs-dir's default; also what the daemon's views use before the configuration is loaded. */
export const DEFAULT_POD_LOGS_DIR = '/var/log/pods';

/**
 * Plain defaults: [path, value], applied when the field is unset (pointer: absent or null;
 * non-pointer: absent or the zero value), in the order of defaults.go.
 */
const SIMPLE_DEFAULTS: [string, unknown][] = [
  ['enableServer', true],
  ['syncFrequency', '1m0s'],
  ['fileCheckFrequency', '20s'],
  ['httpCheckFrequency', '20s'],
  ['address', '0.0.0.0'],
  ['port', 10250],
  ['authentication.anonymous.enabled', false],
  ['authentication.webhook.enabled', true],
  ['authentication.webhook.cacheTTL', '2m0s'],
  ['authorization.mode', 'Webhook'],
  ['authorization.webhook.cacheAuthorizedTTL', '5m0s'],
  ['authorization.webhook.cacheUnauthorizedTTL', '30s'],
  ['registryPullQPS', 5],
  ['registryBurst', 10],
  ['eventRecordQPS', 50],
  ['eventBurst', 100],
  ['enableDebuggingHandlers', true],
  ['healthzPort', 10248],
  ['healthzBindAddress', '127.0.0.1'],
  ['oomScoreAdj', -999],
  ['streamingConnectionIdleTimeout', '4h0m0s'],
  // nodeStatusReportFrequency: special, see applyKubeletConfigurationDefaults.
  ['nodeStatusUpdateFrequency', '10s'],
  ['nodeLeaseDurationSeconds', 40],
  ['imageMinimumGCAge', '2m0s'],
  ['imageGCHighThresholdPercent', 85],
  ['imageGCLowThresholdPercent', 80],
  ['volumeStatsAggPeriod', '1m0s'],
  ['cgroupsPerQOS', true],
  ['cgroupDriver', 'cgroupfs'],
  ['cpuManagerPolicy', 'none'],
  ['cpuManagerReconcilePeriod', '10s'],
  ['draManagerReconcilePeriod', '1m0s'],
  ['memoryManagerPolicy', 'None'],
  ['topologyManagerPolicy', 'none'],
  ['topologyManagerScope', 'container'],
  ['runtimeRequestTimeout', '2m0s'],
  ['hairpinMode', 'promiscuous-bridge'],
  ['maxPods', 110],
  // podPidsLimit: special (negative also becomes -1).
  ['resolvConf', '/etc/resolv.conf'],
  ['cpuCFSQuota', true],
  ['cpuCFSQuotaPeriod', '100ms'],
  ['nodeStatusMaxImages', 50],
  ['maxOpenFiles', 1000000],
  ['contentType', 'application/vnd.kubernetes.protobuf'],
  ['kubeAPIQPS', 50],
  ['kubeAPIBurst', 100],
  // serializeImagePulls: special (follows maxParallelImagePulls).
  ['evictionPressureTransitionPeriod', '5m0s'],
  ['mergeDefaultEvictionSettings', false],
  ['enableControllerAttachDetach', true],
  ['makeIPTablesUtilChains', true],
  ['iptablesMasqueradeBit', 14],
  ['iptablesDropBit', 15],
  ['failSwapOn', true],
  ['containerLogMaxSize', '10Mi'],
  ['containerLogMaxFiles', 5],
  ['containerLogMaxWorkers', 1],
  ['containerLogMonitorInterval', '10s'],
  ['configMapAndSecretChangeDetectionStrategy', 'Watch'],
  // enforceNodeAllocatable: special (only a missing list is defaulted; [] stays empty).
  ['volumePluginDir', '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'],
  // logging: component-base SetRecommendedLoggingConfiguration.
  ['logging.format', 'text'],
  ['logging.flushFrequency', '5s'],
  ['logging.options.text.infoBufferSize', '0'],
  ['logging.options.json.infoBufferSize', '0'],
  ['enableSystemLogHandler', true],
  ['enableSystemLogQuery', false],
  ['enableProfilingHandler', true],
  ['enableDebugFlagsHandler', true],
  ['seccompDefault', false],
  ['failCgroupV1', true],
  ['memoryThrottlingFactor', 0.9],
  ['memoryReservationPolicy', 'None'],
  ['registerNode', true],
  ['localStorageCapacityIsolation', true],
  ['containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock'],
  ['podLogsDir', DEFAULT_POD_LOGS_DIR],
];

/**
 * Applies the v1beta1 defaults to a decoded document and fills every other field with its zero
 * value (or null for an unset pointer without default), giving a complete KubeletConfiguration.
 * `gates` are the gates in effect while defaulting (Go: the process's gates merged with the
 * document's own featureGates); two defaults depend on them.
 */
export function applyKubeletConfigurationDefaults(doc: KubeletConfigurationDocument, gates: FeatureGates): KubeletConfiguration {
  const given = structuredClone(doc) as Record<string, unknown>;
  const cfg = fillZero(given, KUBELET_CONFIGURATION_SCHEMA);
  const isUnset = (path: string): boolean => {
    const value = getAtPath(cfg, path);
    if (value === null || value === undefined) return true;
    const spec = specAt(path);
    return spec !== undefined && !spec.nullable && isZero(value, spec);
  };
  const wasGiven = (path: string): boolean => {
    const value = getAtPath(given, path);
    return value !== undefined && value !== null;
  };

  for (const [path, value] of SIMPLE_DEFAULTS) {
    if (path === 'nodeStatusUpdateFrequency' && isUnset('nodeStatusReportFrequency')) {
      // Backward compatibility in Go: the report frequency follows an explicitly set update frequency.
      setAtPath(cfg, 'nodeStatusReportFrequency', isUnset('nodeStatusUpdateFrequency') ? '5m0s' : getAtPath(cfg, 'nodeStatusUpdateFrequency'));
    }
    if (isUnset(path)) setAtPath(cfg, path, structuredClone(value));
  }

  const pidsLimit = cfg.podPidsLimit;
  if (typeof pidsLimit !== 'number' || pidsLimit < 0) cfg.podPidsLimit = -1;

  if (cfg.serializeImagePulls === null) {
    // true unless maxParallelImagePulls asks for parallel pulls, so users need not set both.
    const parallel = cfg.maxParallelImagePulls;
    cfg.serializeImagePulls = typeof parallel !== 'number' || parallel < 2;
  }

  if (!wasGiven('enforceNodeAllocatable')) cfg.enforceNodeAllocatable = ['pods'];

  if (!wasGiven('evictionHard')) cfg.evictionHard = { ...DEFAULT_EVICTION_HARD };
  else if (cfg.mergeDefaultEvictionSettings === true) cfg.evictionHard = { ...DEFAULT_EVICTION_HARD, ...(cfg.evictionHard as Record<string, string>) };

  if (isEnabled(gates, 'KubeletCrashLoopBackOffMax') && isUnset('crashLoopBackOff.maxContainerRestartPeriod')) {
    setAtPath(cfg, 'crashLoopBackOff.maxContainerRestartPeriod', '5m0s');
  }
  if (isEnabled(gates, 'KubeletEnsureSecretPulledImages') && isUnset('imagePullCredentialsVerificationPolicy')) {
    cfg.imagePullCredentialsVerificationPolicy = 'NeverVerifyPreloadedImages';
  }

  cfg.apiVersion = KUBELET_CONFIG_API_VERSION;
  cfg.kind = KUBELET_CONFIG_KIND;
  // Built field by field from the schema (fillZero, then the defaults by path): every field is now
  // present with its schema type, which tsc cannot follow through path-keyed writes.
  return orderLikeSchema(cfg) as unknown as KubeletConfiguration; // cast: complete by construction, see above
}

/**
 * The flag-only baseline (no --config): the v1beta1 defaults, then the legacy values that keep the
 * old command-line behaviour (Go applyLegacyDefaults).
 */
export function flagOnlyDefaultConfiguration(gates: FeatureGates): KubeletConfiguration {
  const cfg = applyKubeletConfigurationDefaults({}, gates);
  applyLegacyDefaults(cfg);
  return cfg;
}

/** Go applyLegacyDefaults: anonymous auth on, webhook authn off, AlwaysAllow, read-only port 10255. */
export function applyLegacyDefaults(cfg: KubeletConfiguration): void {
  cfg.authentication.anonymous.enabled = true;
  cfg.authentication.webhook.enabled = false;
  cfg.authorization.mode = 'AlwaysAllow';
  cfg.readOnlyPort = 10255;
}

function fillZero(given: Record<string, unknown>, fields: Record<string, FieldSpec>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...given };
  for (const [name, spec] of Object.entries(fields)) {
    const value = out[name];
    if (value === undefined || value === null) {
      out[name] = spec.nullable ? null : zeroValue(spec);
    } else if (spec.kind === 'object' && typeof value === 'object') {
      out[name] = fillZero(value as Record<string, unknown>, spec.fields ?? {});
    }
  }
  return out;
}

function orderLikeSchema(cfg: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: cfg.apiVersion, kind: cfg.kind };
  for (const name of Object.keys(KUBELET_CONFIGURATION_SCHEMA)) out[name] = cfg[name];
  return out;
}

function specAt(path: string): FieldSpec | undefined {
  let fields: Record<string, FieldSpec> | undefined = KUBELET_CONFIGURATION_SCHEMA;
  let spec: FieldSpec | undefined;
  for (const part of path.split('.')) {
    spec = fields?.[part];
    fields = spec?.fields;
  }
  return spec;
}

function isZero(value: unknown, spec: FieldSpec): boolean {
  return JSON.stringify(value) === JSON.stringify(zeroValue(spec));
}
