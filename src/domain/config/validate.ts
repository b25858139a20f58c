/**
 * Validation of the effective configuration and of the command-line-only flags, after
 * pkg/kubelet/apis/config/validation/validation.go (ValidateKubeletConfiguration) and
 * cmd/kubelet/app/options/options.go (ValidateKubeletFlags). Every rule runs and every failure is
 * returned, each naming its field; messages keep Go's wording (`invalid configuration: maxPods
 * (--max-pods) -1 must not be a negative number`).
 *
 * Beyond Go's ValidateKubeletConfiguration, and marked below: kubeReserved/systemReserved quantities,
 * eviction threshold values and cgroupDriver, which the Go kubelet only rejects later during start-up.
 * Not done here: the OS-specific checks (validateKubeletOSConfiguration needs the host's cgroup
 * version), left to the container manager phase.
 */
import { parseGoDuration } from './duration.js';
import { isEnabled, type FeatureGates } from './feature-gates.js';
import { cpuSetError, labelValueErrors, qualifiedNameErrors } from './label-syntax.js';
import { TAINT_EFFECTS } from '../api/common-types.js';
import { percentageValue } from '../resources/percentage.js';
import { isQuantity, quantityNumber } from '../resources/quantity.js';
import { policyOptionErrors } from '../resource-managers/topology/policy-options.js';
import { validateConfiguredValues } from './validate-values.js';
import { KUBERNETES_VERSION } from './version.js';
import type { FieldError, KubeletConfiguration, KubeletFlags } from './types.js';

const ms = (d: string | null): number => (d === null ? 0 : parseGoDuration(d));
const isPort = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= 65535;
const inRange = (n: number, lo: number, hi: number): boolean => n >= lo && n <= hi;

const ENFORCE = {
  pods: 'pods',
  systemReserved: 'system-reserved',
  systemReservedCompressible: 'system-reserved-compressible',
  kubeReserved: 'kube-reserved',
  kubeReservedCompressible: 'kube-reserved-compressible',
  none: 'none',
};

export function validateKubeletConfiguration(kc: KubeletConfiguration, gates: FeatureGates): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (field: string, value: unknown, message: string): void => {
    errors.push({ field, value, message: `invalid configuration: ${message}` });
  };

  if (kc.nodeLeaseDurationSeconds <= 0) fail('nodeLeaseDurationSeconds', kc.nodeLeaseDurationSeconds, 'nodeLeaseDurationSeconds must be greater than 0');
  if (kc.systemCgroups !== '' && kc.cgroupRoot === '') {
    fail('systemCgroups', kc.systemCgroups, 'systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  }
  if (kc.eventBurst < 0) fail('eventBurst', kc.eventBurst, `eventBurst (--event-burst) ${kc.eventBurst} must not be a negative number`);
  if (kc.eventRecordQPS < 0) fail('eventRecordQPS', kc.eventRecordQPS, `eventRecordQPS (--event-qps) ${kc.eventRecordQPS} must not be a negative number`);
  if (kc.healthzPort !== 0 && !isPort(kc.healthzPort)) {
    fail('healthzPort', kc.healthzPort, `healthzPort (--healthz-port) ${kc.healthzPort} must be between 1 and 65535, inclusive`);
  }
  const cfsPeriod = ms(kc.cpuCFSQuotaPeriod);
  if (!isEnabled(gates, 'CustomCPUCFSQuotaPeriod') && cfsPeriod !== 100) {
    fail('cpuCFSQuotaPeriod', kc.cpuCFSQuotaPeriod, `cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${kc.cpuCFSQuotaPeriod} requires feature gate CustomCPUCFSQuotaPeriod`);
  }
  if (isEnabled(gates, 'CustomCPUCFSQuotaPeriod') && !inRange(cfsPeriod, 1, 1000)) {
    fail('cpuCFSQuotaPeriod', kc.cpuCFSQuotaPeriod, `cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${kc.cpuCFSQuotaPeriod} must be between 1ms and 1sec, inclusive`);
  }
  const high = kc.imageGCHighThresholdPercent;
  const low = kc.imageGCLowThresholdPercent;
  if (!inRange(high, 0, 100)) fail('imageGCHighThresholdPercent', high, `imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  if (!inRange(low, 0, 100)) fail('imageGCLowThresholdPercent', low, `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  if (low >= high) {
    fail('imageGCLowThresholdPercent', low, `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  }
  const minAge = ms(kc.imageMinimumGCAge);
  const maxAge = ms(kc.imageMaximumGCAge);
  if (maxAge !== 0 && !isEnabled(gates, 'ImageMaximumGCAge')) {
    fail('imageMaximumGCAge', kc.imageMaximumGCAge, 'ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge');
  }
  if (minAge < 0) fail('imageMinimumGCAge', kc.imageMinimumGCAge, `imageMinimumGCAge ${kc.imageMinimumGCAge} must not be negative`);
  if (maxAge < 0) fail('imageMaximumGCAge', kc.imageMaximumGCAge, `imageMaximumGCAge ${kc.imageMaximumGCAge} must not be negative`);
  if (maxAge > 0 && maxAge <= minAge) {
    fail('imageMaximumGCAge', kc.imageMaximumGCAge, `imageMaximumGCAge ${kc.imageMaximumGCAge} must be greater than imageMinimumGCAge ${kc.imageMinimumGCAge}`);
  }
  if (ms(kc.draManagerReconcilePeriod) <= 0) {
    fail('draManagerReconcilePeriod', kc.draManagerReconcilePeriod, `draManagerReconcilePeriod ${kc.draManagerReconcilePeriod} must be greater than zero`);
  }
  if (!inRange(kc.iptablesDropBit, 0, 31)) fail('iptablesDropBit', kc.iptablesDropBit, `iptablesDropBit (--iptables-drop-bit) ${kc.iptablesDropBit} must be between 0 and 31, inclusive`);
  if (!inRange(kc.iptablesMasqueradeBit, 0, 31)) {
    fail('iptablesMasqueradeBit', kc.iptablesMasqueradeBit, `iptablesMasqueradeBit (--iptables-masquerade-bit) ${kc.iptablesMasqueradeBit} must be between 0 and 31, inclusive`);
  }
  if (kc.kubeAPIBurst < 0) fail('kubeAPIBurst', kc.kubeAPIBurst, `kubeAPIBurst (--kube-api-burst) ${kc.kubeAPIBurst} must not be a negative number`);
  if (kc.kubeAPIQPS < 0) fail('kubeAPIQPS', kc.kubeAPIQPS, `kubeAPIQPS (--kube-api-qps) ${kc.kubeAPIQPS} must not be a negative number`);
  if (kc.nodeStatusMaxImages < -1) fail('nodeStatusMaxImages', kc.nodeStatusMaxImages, `nodeStatusMaxImages (--node-status-max-images) ${kc.nodeStatusMaxImages} must be -1 or greater`);
  if (kc.maxOpenFiles < 0) fail('maxOpenFiles', kc.maxOpenFiles, `maxOpenFiles (--max-open-files) ${kc.maxOpenFiles} must not be a negative number`);
  if (kc.maxPods < 0) fail('maxPods', kc.maxPods, `maxPods (--max-pods) ${kc.maxPods} must not be a negative number`);
  if (!inRange(kc.oomScoreAdj, -1000, 1000)) fail('oomScoreAdj', kc.oomScoreAdj, `oomScoreAdj (--oom-score-adj) ${kc.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  if (kc.podsPerCore < 0) fail('podsPerCore', kc.podsPerCore, `podsPerCore (--pods-per-core) ${kc.podsPerCore} must not be a negative number`);
  if (!isPort(kc.port)) fail('port', kc.port, `port (--port) ${kc.port} must be between 1 and 65535, inclusive`);
  if (kc.readOnlyPort !== 0 && !isPort(kc.readOnlyPort)) fail('readOnlyPort', kc.readOnlyPort, `readOnlyPort (--read-only-port) ${kc.readOnlyPort} must be between 0 and 65535, inclusive`);
  if (kc.registryBurst < 0) fail('registryBurst', kc.registryBurst, `registryBurst (--registry-burst) ${kc.registryBurst} must not be a negative number`);
  if (kc.registryPullQPS < 0) fail('registryPullQPS', kc.registryPullQPS, `registryPullQPS (--registry-qps) ${kc.registryPullQPS} must not be a negative number`);
  const parallel = kc.maxParallelImagePulls;
  if (parallel !== null && parallel < 1) fail('maxParallelImagePulls', parallel, `maxParallelImagePulls ${parallel} must be a positive number`);
  if (kc.serializeImagePulls && parallel !== null && parallel > 1) {
    fail('maxParallelImagePulls', parallel, 'maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false');
  }
  if (kc.serverTLSBootstrap && !isEnabled(gates, 'RotateKubeletServerCertificate')) {
    fail('serverTLSBootstrap', kc.serverTLSBootstrap, 'serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate');
  }
  if (kc.runOnce) fail('runOnce', kc.runOnce, 'runOnce (--runOnce) true, Runonce mode has been deprecated and should not be set');

  kc.registerWithTaints.forEach((taint, i) => {
    const problems = [
      ...qualifiedNameErrors(taint.key),
      ...labelValueErrors(taint.value ?? ''),
      ...(TAINT_EFFECTS.includes(taint.effect) ? [] : [`invalid taint effect: ${taint.effect}`]),
    ];
    const shown = `${taint.key}${taint.value !== undefined ? `=${taint.value}` : ''}:${taint.effect}`;
    if (problems.length > 0) errors.push({ field: `registerWithTaints[${i}]`, value: taint, message: `invalid taint: ${shown} (${problems.join('; ')})` });
    if (taint.timeAdded !== undefined) fail(`registerWithTaints[${i}].timeAdded`, taint.timeAdded, 'taint.TimeAdded is not nil');
  });

  const policies = ['none', 'best-effort', 'restricted', 'single-numa-node'];
  if (!policies.includes(kc.topologyManagerPolicy)) {
    fail('topologyManagerPolicy', kc.topologyManagerPolicy, `topologyManagerPolicy (--topology-manager-policy) ${JSON.stringify(kc.topologyManagerPolicy)} must be one of: [${policies.map((p) => JSON.stringify(p)).join(' ')}]`);
  }
  if (!['container', 'pod'].includes(kc.topologyManagerScope)) {
    fail('topologyManagerScope', kc.topologyManagerScope, `topologyManagerScope (--topology-manager-scope) ${JSON.stringify(kc.topologyManagerScope)} must be one of: "container", or "pod"`);
  }
  if (Object.keys(kc.topologyManagerPolicyOptions).length > 0 && !isEnabled(gates, 'TopologyManagerPolicyOptions')) {
    fail('topologyManagerPolicyOptions', kc.topologyManagerPolicyOptions, 'topologyManagerPolicyOptions requires feature gate TopologyManagerPolicyOptions enabled');
  }
  // Go checks the options when it builds the topology manager, which fails the start-up alike.
  for (const message of policyOptionErrors(kc.topologyManagerPolicyOptions, gates)) {
    errors.push({ field: 'topologyManagerPolicyOptions', value: kc.topologyManagerPolicyOptions, message });
  }

  validateShutdown(kc, gates, fail);

  if (isEnabled(gates, 'NodeSwap')) {
    if (!['', 'NoSwap', 'LimitedSwap'].includes(kc.memorySwap.swapBehavior)) {
      fail('memorySwap.swapBehavior', kc.memorySwap.swapBehavior, `memorySwap.swapBehavior ${JSON.stringify(kc.memorySwap.swapBehavior)} must be one of: "", "LimitedSwap" or "NoSwap"`);
    }
  } else if (kc.memorySwap.swapBehavior !== '') {
    fail('memorySwap.swapBehavior', kc.memorySwap.swapBehavior, 'memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled');
  }

  const restartMax = kc.crashLoopBackOff.maxContainerRestartPeriod;
  if (isEnabled(gates, 'KubeletCrashLoopBackOffMax')) {
    if (restartMax === null) {
      fail('crashLoopBackOff.maxContainerRestartPeriod', null, 'FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set');
    } else if (!inRange(ms(restartMax), 1000, 300000)) {
      fail('crashLoopBackOff.maxContainerRestartPeriod', restartMax, `CrashLoopBackOff.MaxContainerRestartPeriod (got: ${ms(restartMax) / 1000} seconds) must be set between 1s and 300s`);
    }
  } else if (restartMax !== null) {
    fail('crashLoopBackOff.maxContainerRestartPeriod', restartMax, 'FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set');
  }

  validateEnforceNodeAllocatable(kc, fail);

  const hairpin = ['none', 'hairpin-veth', 'promiscuous-bridge'];
  if (!hairpin.includes(kc.hairpinMode)) {
    fail('hairpinMode', kc.hairpinMode, `option ${JSON.stringify(kc.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`);
  }

  const pullPolicies = ['NeverVerify', 'NeverVerifyPreloadedImages', 'NeverVerifyAllowlistedImages', 'AlwaysVerify'];
  if (isEnabled(gates, 'KubeletEnsureSecretPulledImages')) {
    if (!pullPolicies.includes(kc.imagePullCredentialsVerificationPolicy)) {
      fail('imagePullCredentialsVerificationPolicy', kc.imagePullCredentialsVerificationPolicy,
        `option ${JSON.stringify(kc.imagePullCredentialsVerificationPolicy)} specified for imagePullCredentialsVerificationPolicy. Valid options are ${pullPolicies.map((p) => JSON.stringify(p)).join(', ').replace(/, ([^,]*)$/, ' or $1')}`);
    }
    if (kc.preloadedImagesVerificationAllowlist.length > 0 && kc.imagePullCredentialsVerificationPolicy !== 'NeverVerifyAllowlistedImages') {
      fail('preloadedImagesVerificationAllowlist', kc.preloadedImagesVerificationAllowlist,
        "can't set `preloadedImagesVerificationAllowlist` if `imagePullCredentialsVertificationPolicy` is not \"NeverVerifyAllowlistedImages\"");
    }
  } else {
    if (kc.imagePullCredentialsVerificationPolicy !== '') {
      fail('imagePullCredentialsVerificationPolicy', kc.imagePullCredentialsVerificationPolicy, '`imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled');
    }
    if (kc.preloadedImagesVerificationAllowlist.length > 0) {
      fail('preloadedImagesVerificationAllowlist', kc.preloadedImagesVerificationAllowlist, '`preloadedImagesVerificationAllowlist` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled');
    }
  }

  if (kc.reservedSystemCPUs !== '') {
    if (kc.systemReservedCgroup !== '' || kc.kubeReservedCgroup !== '') {
      fail('reservedSystemCPUs', kc.reservedSystemCPUs, "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)");
    }
    const cpuErr = cpuSetError(kc.reservedSystemCPUs);
    if (cpuErr !== undefined) fail('reservedSystemCPUs', kc.reservedSystemCPUs, `unable to parse reservedSystemCPUs (--reserved-cpus) ${kc.reservedSystemCPUs}, error: ${cpuErr}`);
  }

  validateReservedMemory(kc, fail);
  validateShowHiddenMetrics(kc, errors);
  validateLogging(kc, gates, errors);
  validateTracing(kc, errors);

  if (isEnabled(gates, 'MemoryQoS') && kc.memoryThrottlingFactor === null) {
    fail('memoryThrottlingFactor', null, 'memoryThrottlingFactor is required when MemoryQoS feature flag is enabled');
  }
  if (kc.memoryThrottlingFactor !== null && (kc.memoryThrottlingFactor <= 0 || kc.memoryThrottlingFactor > 1)) {
    fail('memoryThrottlingFactor', kc.memoryThrottlingFactor, `memoryThrottlingFactor ${kc.memoryThrottlingFactor} must be greater than 0 and less than or equal to 1.0`);
  }
  if (!isEnabled(gates, 'MemoryQoS') && kc.memoryReservationPolicy === 'TieredReservation') {
    fail('memoryReservationPolicy', kc.memoryReservationPolicy, 'memoryReservationPolicy "TieredReservation" requires MemoryQoS feature gate to be enabled');
  }
  if (!['None', 'TieredReservation'].includes(kc.memoryReservationPolicy)) {
    fail('memoryReservationPolicy', kc.memoryReservationPolicy, `option ${JSON.stringify(kc.memoryReservationPolicy)} specified for memoryReservationPolicy. Valid options are "None" or "TieredReservation"`);
  }
  if (kc.containerRuntimeEndpoint === '') fail('containerRuntimeEndpoint', '', 'the containerRuntimeEndpoint was not specified or empty');
  if (kc.enableSystemLogQuery && !isEnabled(gates, 'NodeLogQuery')) fail('enableSystemLogQuery', true, 'NodeLogQuery feature gate is required for enableSystemLogQuery');
  if (kc.enableSystemLogQuery && !kc.enableSystemLogHandler) fail('enableSystemLogQuery', true, 'enableSystemLogHandler is required for enableSystemLogQuery');
  if (kc.containerLogMaxWorkers < 1) fail('containerLogMaxWorkers', kc.containerLogMaxWorkers, 'containerLogMaxWorkers must be greater than or equal to 1');
  if (ms(kc.containerLogMonitorInterval) < 3000) {
    fail('containerLogMonitorInterval', kc.containerLogMonitorInterval, 'containerLogMonitorInterval must be a positive time duration greater than or equal to 3s');
  }
  if (kc.containerLogMaxFiles <= 1) fail('containerLogMaxFiles', kc.containerLogMaxFiles, 'containerLogMaxFiles must be greater than 1');
  validatePodLogsDir(kc.podLogsDir, fail);
  validateConfiguredValues(kc, fail);

  // kubelet-ts extras: the Go kubelet rejects these later, during start-up (run(): parseResourceList,
  // eviction.ParseThresholdConfig, the container manager's cgroup driver check).
  for (const field of ['kubeReserved', 'systemReserved'] as const) {
    for (const [name, value] of Object.entries(kc[field])) {
      if (!isQuantity(value)) fail(`${field}.${name}`, value, `${field} (--${field === 'kubeReserved' ? 'kube' : 'system'}-reserved) ${name}=${value} is not a valid quantity`);
    }
  }
  for (const field of ['evictionHard', 'evictionSoft', 'evictionMinimumReclaim'] as const) {
    for (const [signal, value] of Object.entries(kc[field])) {
      const pct = percentageValue(value);
      const ok = pct !== undefined ? pct >= 0 && pct <= 100 : quantityNumber(value) !== undefined && (quantityNumber(value) as number) >= 0;
      if (!ok) fail(`${field}.${signal}`, value, `${field} ${signal}=${value} must be a non-negative quantity or a percentage between 0% and 100%`);
    }
  }
  for (const [signal, value] of Object.entries(kc.evictionSoftGracePeriod)) {
    let bad = false;
    try {
      bad = parseGoDuration(value) < 0;
    } catch {
      bad = true;
    }
    if (bad) fail(`evictionSoftGracePeriod.${signal}`, value, `evictionSoftGracePeriod ${signal}=${value} must be a non-negative duration`);
  }
  for (const signal of Object.keys(kc.evictionSoft)) {
    if (kc.evictionSoftGracePeriod[signal] === undefined) fail(`evictionSoftGracePeriod.${signal}`, undefined, `evictionSoft ${signal} has no grace period in evictionSoftGracePeriod`);
  }
  if (ms(kc.syncFrequency) <= 0) fail('syncFrequency', kc.syncFrequency, `syncFrequency (--sync-frequency) ${kc.syncFrequency} must be greater than zero (Go: invalid sync frequency)`); // Go: NewMainKubelet
  // Not in Go's validation; a period of zero or less would re-read staticPodPath without pause.
  if (ms(kc.fileCheckFrequency) <= 0) fail('fileCheckFrequency', kc.fileCheckFrequency, `fileCheckFrequency (--file-check-frequency) ${kc.fileCheckFrequency} must be greater than zero`);
  if (!['cgroupfs', 'systemd'].includes(kc.cgroupDriver)) {
    fail('cgroupDriver', kc.cgroupDriver, `cgroupDriver (--cgroup-driver) ${JSON.stringify(kc.cgroupDriver)} must be "cgroupfs" or "systemd"`);
  }
  return errors;
}

type Fail = (field: string, value: unknown, message: string) => void;

function validateShutdown(kc: KubeletConfiguration, gates: FeatureGates, fail: Fail): void {
  const grace = ms(kc.shutdownGracePeriod);
  const critical = ms(kc.shutdownGracePeriodCriticalPods);
  if (isEnabled(gates, 'GracefulNodeShutdown')) {
    if (critical > grace) {
      fail('shutdownGracePeriodCriticalPods', kc.shutdownGracePeriodCriticalPods, `shutdownGracePeriodCriticalPods ${kc.shutdownGracePeriodCriticalPods} must be <= shutdownGracePeriod ${kc.shutdownGracePeriod}`);
    }
    if (grace < 0 || (grace > 0 && grace < 1000)) fail('shutdownGracePeriod', kc.shutdownGracePeriod, `shutdownGracePeriod ${kc.shutdownGracePeriod} must be either zero or otherwise >= 1 sec`);
    if (critical < 0 || (critical > 0 && critical < 1000)) {
      fail('shutdownGracePeriodCriticalPods', kc.shutdownGracePeriodCriticalPods, `shutdownGracePeriodCriticalPods ${kc.shutdownGracePeriodCriticalPods} must be either zero or otherwise >= 1 sec`);
    }
  }
  if ((grace > 0 || critical > 0) && !isEnabled(gates, 'GracefulNodeShutdown')) {
    fail('shutdownGracePeriod', kc.shutdownGracePeriod, 'specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown');
  }
  const byPriority = kc.shutdownGracePeriodByPodPriority.length > 0;
  if (isEnabled(gates, 'GracefulNodeShutdownBasedOnPodPriority')) {
    if (byPriority && (grace > 0 || critical > 0)) {
      fail('shutdownGracePeriodByPodPriority', kc.shutdownGracePeriodByPodPriority, 'Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time');
    }
  } else if (byPriority) {
    fail('shutdownGracePeriodByPodPriority', kc.shutdownGracePeriodByPodPriority, 'Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority');
  }
}

function validateEnforceNodeAllocatable(kc: KubeletConfiguration, fail: Fail): void {
  const list = kc.enforceNodeAllocatable;
  const field = 'enforceNodeAllocatable';
  if (list.includes(ENFORCE.systemReserved) && list.includes(ENFORCE.systemReservedCompressible)) {
    fail(field, list, `both "system-reserved" and "system-reserved-compressible" cannot be specified together in enforceNodeAllocatable (--enforce-node-allocatable)`);
  }
  if (list.includes(ENFORCE.kubeReserved) && list.includes(ENFORCE.kubeReservedCompressible)) {
    fail(field, list, `both "kube-reserved" and "kube-reserved-compressible" cannot be specified together in enforceNodeAllocatable (--enforce-node-allocatable)`);
  }
  const seen = new Set<string>();
  for (const val of list) {
    if (seen.has(val)) {
      fail(field, val, `duplicated enforcements ${JSON.stringify(val)} in enforceNodeAllocatable (--enforce-node-allocatable)`);
      continue;
    }
    seen.add(val);
    switch (val) {
      case ENFORCE.pods:
        break;
      case ENFORCE.systemReserved:
      case ENFORCE.systemReservedCompressible:
        if (kc.systemReservedCgroup === '') {
          fail('systemReservedCgroup', '', `systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or "system-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)`);
        }
        break;
      case ENFORCE.kubeReserved:
      case ENFORCE.kubeReservedCompressible:
        if (kc.kubeReservedCgroup === '') {
          fail('kubeReservedCgroup', '', `kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" or "kube-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)`);
        }
        break;
      case ENFORCE.none:
        if (list.length > 1) fail(field, list, 'enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified');
        continue;
      default:
        fail(field, val, `option ${JSON.stringify(val)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"`);
        continue;
    }
    if (!kc.cgroupsPerQOS) {
      fail('cgroupsPerQOS', false, `cgroupsPerQOS (--cgroups-per-qos) must be set to true when ${JSON.stringify(val)} contained in enforceNodeAllocatable (--enforce-node-allocatable)`);
    }
  }
}

function validateReservedMemory(kc: KubeletConfiguration, fail: Fail): void {
  const seen = new Map<number, Set<string>>();
  kc.reservedMemory.forEach((reservation, i) => {
    const node = reservation.numaNode;
    const types = seen.get(node) ?? new Set<string>();
    seen.set(node, types);
    for (const [resource, quantity] of Object.entries(reservation.limits)) {
      const field = `reservedMemory[${i}].limits.${resource}`;
      if (resource !== 'memory' && !resource.startsWith('hugepages-')) {
        fail(field, quantity, `the limit type ${JSON.stringify(resource)} for NUMA node ${node} is not supported, only [memory hugepages-<HugePageSize>] is accepted`);
      }
      if (quantityNumber(quantity) === 0) fail(field, quantity, `reserved memory may not be zero for NUMA node ${node} and resource ${JSON.stringify(resource)}`);
      if (types.has(resource)) fail(field, quantity, `the reserved memory has a duplicate value for NUMA node ${node} and resource ${JSON.stringify(resource)}`);
      types.add(resource);
    }
  });
}

function validateShowHiddenMetrics(kc: KubeletConfiguration, errors: FieldError[]): void {
  const value = kc.showHiddenMetricsForVersion;
  if (value === '') return;
  const [major = '', minor = ''] = KUBERNETES_VERSION.slice(1).split('.');
  const previous = `${major}.${Number(minor) - 1}`;
  if (value !== previous) {
    errors.push({
      field: 'showHiddenMetricsForVersion',
      value,
      message: `--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`,
    });
  }
}

function validateLogging(kc: KubeletConfiguration, gates: FeatureGates, errors: FieldError[]): void {
  const logging = kc.logging;
  if (!['text', 'json'].includes(logging.format)) {
    errors.push({ field: 'logging.format', value: logging.format, message: `logging.format: Unsupported value: ${JSON.stringify(logging.format)}: supported values: "json", "text"` });
  }
  if (logging.format !== 'text' && logging.vmodule.length > 0) {
    errors.push({ field: 'logging.vmodule', value: logging.vmodule, message: 'logging.vmodule: Forbidden: only supported for text log format' });
  }
  if (!isEnabled(gates, 'LoggingAlphaOptions')) {
    for (const format of ['text', 'json'] as const) {
      if (logging.options[format].splitStream) {
        errors.push({
          field: `logging.options.${format}.splitStream`,
          value: true,
          message: `logging.options.${format}.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled`,
        });
      }
      if (quantityNumber(logging.options[format].infoBufferSize) !== 0) {
        errors.push({
          field: `logging.options.${format}.infoBufferSize`,
          value: logging.options[format].infoBufferSize,
          message: `logging.options.${format}.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled`,
        });
      }
    }
  }
}

function validateTracing(kc: KubeletConfiguration, errors: FieldError[]): void {
  const tracing = kc.tracing;
  if (tracing === null) return;
  const rate = tracing.samplingRatePerMillion;
  if (rate !== undefined && (rate < 0 || rate > 1_000_000)) {
    errors.push({ field: 'tracing.samplingRatePerMillion', value: rate, message: `tracing.samplingRatePerMillion: Invalid value: ${rate}: sampling rate must be between 0 and 1,000,000` });
  }
  if (tracing.endpoint !== undefined && tracing.endpoint !== '' && /\s/.test(tracing.endpoint)) {
    errors.push({ field: 'tracing.endpoint', value: tracing.endpoint, message: `tracing.endpoint: Invalid value: ${JSON.stringify(tracing.endpoint)}: must be a valid URL` });
  }
}

function validatePodLogsDir(dir: string, fail: Fail): void {
  if (dir === '') fail('podLogsDir', dir, 'podLogsDir was not specified');
  if (!dir.startsWith('/')) fail('podLogsDir', dir, `pod logs path ${JSON.stringify(dir)} must be absolute path`);
  if (cleanPath(dir) !== dir) fail('podLogsDir', dir, `pod logs path ${JSON.stringify(dir)} must be normalized`);
  if ([...dir].some((c) => (c.codePointAt(0) ?? 0) > 127)) fail('podLogsDir', dir, `pod logs path ${JSON.stringify(dir)} mut contains ASCII characters only`);
}

/** Go's filepath.Clean for slash paths. */
function cleanPath(path: string): string {
  if (path === '') return '.';
  const rooted = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
    } else {
      out.push(part);
    }
  }
  const joined = out.join('/');
  return rooted ? `/${joined}` : joined === '' ? '.' : joined;
}

/**
 * ValidateKubeletFlags: --node-labels may only use the kubelet's own kubernetes.io labels and must be
 * valid labels. Also --cloud-provider must be empty or 'external' (Go checks this in NewMainKubelet).
 */
export function validateKubeletFlags(flags: KubeletFlags): FieldError[] {
  const errors: FieldError[] = [];
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(flags.nodeLabels)) {
    if (isKubernetesLabel(key) && !isKubeletLabel(key)) unknown.push(key);
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length > 0) errors.push({ field: '--node-labels', value: key, message: `invalid node labels: '${key}' - ${keyErrs.join(', ')}` });
    const valueErrs = labelValueErrors(value);
    if (valueErrs.length > 0) errors.push({ field: '--node-labels', value, message: `invalid node labels: '${value}' - ${valueErrs.join(', ')}` });
  }
  // kubelet-ts extra: Go rejects a built-in cloud provider later, in NewMainKubelet (built-in providers are gone).
  if (flags.cloudProvider !== '' && flags.cloudProvider !== 'external') {
    errors.push({
      field: '--cloud-provider',
      value: flags.cloudProvider,
      message: `cloud provider ${JSON.stringify(flags.cloudProvider)} was specified, but built-in cloud providers are disabled. Please set --cloud-provider=external and migrate to an external cloud provider`,
    });
  }
  if (unknown.length > 0) {
    errors.unshift({
      field: '--node-labels',
      value: unknown.sort(),
      message:
        `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n` +
        `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) or be in the specifically allowed set (${KUBELET_LABELS.join(', ')})`,
    });
  }
  return errors;
}

/** k8s.io/kubelet/pkg/apis well_known_labels.go. */
export const KUBELET_LABELS = [
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'kubernetes.io/arch',
  'kubernetes.io/hostname',
  'kubernetes.io/os',
  'node.kubernetes.io/instance-type',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
];
export const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function isKubernetesLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return ns === 'kubernetes.io' || ns.endsWith('.kubernetes.io') || ns === 'k8s.io' || ns.endsWith('.k8s.io');
}

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.includes(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => ns === allowed || ns.endsWith(`.${allowed}`));
}
