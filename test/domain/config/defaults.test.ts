import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVICTION_HARD,
  applyKubeletConfigurationDefaults,
  flagOnlyDefaultConfiguration,
} from '../../../src/domain/config/defaults.js';
import { resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';
import { KUBELET_CONFIGURATION_SCHEMA } from '../../../src/domain/config/schema.js';
import { getAtPath } from '../../../src/domain/config/merge.js';
import type { KubeletConfigurationDocument } from '../../../src/domain/config/types.js';

const gates = resolveFeatureGates().gates;
const defaulted = (doc: KubeletConfigurationDocument = {}) => applyKubeletConfigurationDefaults(doc, gates);

// The Go kubelet's v1beta1 defaults at v1.35:
// pkg/kubelet/apis/config/v1beta1/defaults.go (SetDefaults_KubeletConfiguration), durations as
// metav1.Duration prints them, plus component-base SetRecommendedLoggingConfiguration.
const GO_V1BETA1_DEFAULTS: [string, unknown][] = [
  ['enableServer', true],
  ['syncFrequency', '1m0s'],
  ['fileCheckFrequency', '20s'],
  ['httpCheckFrequency', '20s'],
  ['address', '0.0.0.0'],
  ['port', 10250],
  ['readOnlyPort', 0],
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
  ['nodeStatusReportFrequency', '5m0s'],
  ['nodeStatusUpdateFrequency', '10s'],
  ['nodeLeaseDurationSeconds', 40],
  ['imageMinimumGCAge', '2m0s'],
  ['imageMaximumGCAge', '0s'],
  ['imageGCHighThresholdPercent', 85],
  ['imageGCLowThresholdPercent', 80],
  ['volumeStatsAggPeriod', '1m0s'],
  ['cgroupsPerQOS', true],
  ['cgroupDriver', 'cgroupfs'],
  ['cpuManagerPolicy', 'none'],
  ['cpuManagerReconcilePeriod', '10s'],
  ['memoryManagerPolicy', 'None'],
  ['topologyManagerPolicy', 'none'],
  ['topologyManagerScope', 'container'],
  ['runtimeRequestTimeout', '2m0s'],
  ['hairpinMode', 'promiscuous-bridge'],
  ['maxPods', 110],
  ['podPidsLimit', -1],
  ['resolvConf', '/etc/resolv.conf'],
  ['cpuCFSQuota', true],
  ['cpuCFSQuotaPeriod', '100ms'],
  ['nodeStatusMaxImages', 50],
  ['maxOpenFiles', 1000000],
  ['contentType', 'application/vnd.kubernetes.protobuf'],
  ['kubeAPIQPS', 50],
  ['kubeAPIBurst', 100],
  ['serializeImagePulls', true],
  ['maxParallelImagePulls', null],
  ['evictionHard', { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%', 'imagefs.inodesFree': '5%' }],
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
  ['enforceNodeAllocatable', ['pods']],
  ['volumePluginDir', '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'],
  ['logging.format', 'text'],
  ['logging.flushFrequency', '5s'],
  ['logging.verbosity', 0],
  ['logging.options.text.infoBufferSize', '0'],
  ['logging.options.json.infoBufferSize', '0'],
  ['enableSystemLogHandler', true],
  ['enableProfilingHandler', true],
  ['enableDebugFlagsHandler', true],
  ['seccompDefault', false],
  ['failCgroupV1', true],
  ['memoryThrottlingFactor', 0.9],
  ['registerNode', true],
  ['localStorageCapacityIsolation', true],
  ['containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock'],
  ['podLogsDir', '/var/log/pods'],
  // Gated defaults: KubeletCrashLoopBackOffMax and KubeletEnsureSecretPulledImages are beta and on in 1.35.
  ['crashLoopBackOff.maxContainerRestartPeriod', '5m0s'],
  ['imagePullCredentialsVerificationPolicy', 'NeverVerifyPreloadedImages'],
  // No default: zero values.
  ['staticPodPath', ''],
  ['imageServiceEndpoint', ''],
  ['singleProcessOOMKill', null],
  ['tracing', null],
  ['evictionSoft', {}],
];

describe('applyKubeletConfigurationDefaults (pkg/kubelet/apis/config/v1beta1/defaults.go)', () => {
  const cfg = defaulted();

  it.each(GO_V1BETA1_DEFAULTS)('defaults %s to %j', (path, value) => {
    expect(getAtPath(cfg, path)).toEqual(value);
  });

  it('fills every v1beta1 field, in types.go order, after apiVersion and kind', () => {
    expect(Object.keys(cfg)).toEqual(['apiVersion', 'kind', ...Object.keys(KUBELET_CONFIGURATION_SCHEMA)]);
    expect(cfg.apiVersion).toBe('kubelet.config.k8s.io/v1beta1');
    expect(cfg.kind).toBe('KubeletConfiguration');
  });

  it('lets nodeStatusReportFrequency follow an explicitly set nodeStatusUpdateFrequency', () => {
    expect(defaulted({ nodeStatusUpdateFrequency: '20s' }).nodeStatusReportFrequency).toBe('20s');
    expect(defaulted({ nodeStatusUpdateFrequency: '20s', nodeStatusReportFrequency: '1m0s' }).nodeStatusReportFrequency).toBe('1m0s');
  });

  it('makes serializeImagePulls follow maxParallelImagePulls', () => {
    expect(defaulted({ maxParallelImagePulls: 5 }).serializeImagePulls).toBe(false);
    expect(defaulted({ maxParallelImagePulls: 1 }).serializeImagePulls).toBe(true);
    expect(defaulted({ maxParallelImagePulls: 5, serializeImagePulls: true }).serializeImagePulls).toBe(true);
  });

  it('replaces the whole default evictionHard map when one is given', () => {
    expect(defaulted({ evictionHard: { 'memory.available': '1Gi' } }).evictionHard).toEqual({ 'memory.available': '1Gi' });
  });

  it('fills the missing default signals when mergeDefaultEvictionSettings is true', () => {
    const cfg2 = defaulted({ evictionHard: { 'memory.available': '1Gi' }, mergeDefaultEvictionSettings: true });
    expect(cfg2.evictionHard).toEqual({ ...DEFAULT_EVICTION_HARD, 'memory.available': '1Gi' });
  });

  it('treats a zero non-pointer field as unset but keeps a zero pointer field', () => {
    const cfg2 = defaulted({ maxPods: 0, port: 0, syncFrequency: '0s', healthzPort: 0, registryPullQPS: 0, oomScoreAdj: 0 });
    expect([cfg2.maxPods, cfg2.port, cfg2.syncFrequency]).toEqual([110, 10250, '1m0s']);
    expect([cfg2.healthzPort, cfg2.registryPullQPS, cfg2.oomScoreAdj]).toEqual([0, 0, 0]);
  });

  it('keeps an explicitly empty enforceNodeAllocatable and an explicitly empty resolvConf', () => {
    const cfg2 = defaulted({ enforceNodeAllocatable: [], resolvConf: '' });
    expect(cfg2.enforceNodeAllocatable).toEqual([]);
    expect(cfg2.resolvConf).toBe('');
  });

  it('turns a negative podPidsLimit into -1', () => {
    expect(defaulted({ podPidsLimit: -7 }).podPidsLimit).toBe(-1);
    expect(defaulted({ podPidsLimit: 4096 }).podPidsLimit).toBe(4096);
  });

  it('leaves the gated defaults unset when their gates are off', () => {
    const off = resolveFeatureGates({ field: 'featureGates', gates: { KubeletCrashLoopBackOffMax: false, KubeletEnsureSecretPulledImages: false } }).gates;
    const cfg2 = applyKubeletConfigurationDefaults({}, off);
    expect(cfg2.crashLoopBackOff.maxContainerRestartPeriod).toBeNull();
    expect(cfg2.imagePullCredentialsVerificationPolicy).toBe('');
  });
});

// cmd/kubelet/app/options/options.go: NewKubeletConfiguration + applyLegacyDefaults.
describe('flagOnlyDefaultConfiguration', () => {
  const cfg = flagOnlyDefaultConfiguration(gates);
  it.each([
    ['authentication.anonymous.enabled', true],
    ['authentication.webhook.enabled', false],
    ['authorization.mode', 'AlwaysAllow'],
    ['readOnlyPort', 10255],
    ['port', 10250],
    ['containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock'],
  ])('sets %s to %j', (path, value) => {
    expect(getAtPath(cfg, path)).toEqual(value);
  });
});
