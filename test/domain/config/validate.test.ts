import { describe, expect, it } from 'vitest';
import { applyKubeletConfigurationDefaults } from '../../../src/domain/config/defaults.js';
import { resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { buildEffectiveConfig } from '../../../src/domain/config/effective.js';
import { validateKubeletConfiguration, validateKubeletFlags } from '../../../src/domain/config/validate.js';
import type { KubeletConfigurationDocument } from '../../../src/domain/config/types.js';

const validate = (doc: KubeletConfigurationDocument, gates: Record<string, boolean> = {}) => {
  const resolved = resolveFeatureGates({ field: 'featureGates', gates }).gates;
  return validateKubeletConfiguration(applyKubeletConfigurationDefaults(doc, resolved), resolved);
};

// pkg/kubelet/apis/config/validation/validation.go: one invalid configuration per row; the row names
// the field the error must name and a piece of Go's message.
type InvalidRow = [string, KubeletConfigurationDocument, Record<string, boolean>, string, string];
const INVALID: InvalidRow[] = [
  ['negative maxPods', { maxPods: -1 }, {}, 'maxPods', 'maxPods (--max-pods) -1 must not be a negative number'],
  ['port out of range', { port: 70000 }, {}, 'port', 'port (--port) 70000 must be between 1 and 65535, inclusive'],
  ['readOnlyPort out of range', { readOnlyPort: -2 }, {}, 'readOnlyPort', 'must be between 0 and 65535'],
  ['healthzPort out of range', { healthzPort: 65536 }, {}, 'healthzPort', 'healthzPort (--healthz-port) 65536'],
  ['negative eventBurst', { eventBurst: -1 }, {}, 'eventBurst', 'must not be a negative number'],
  ['negative eventRecordQPS', { eventRecordQPS: -1 }, {}, 'eventRecordQPS', 'must not be a negative number'],
  ['negative kubeAPIQPS', { kubeAPIQPS: -5 }, {}, 'kubeAPIQPS', 'kubeAPIQPS (--kube-api-qps) -5'],
  ['negative kubeAPIBurst', { kubeAPIBurst: -5 }, {}, 'kubeAPIBurst', 'kubeAPIBurst (--kube-api-burst) -5'],
  ['negative registryPullQPS', { registryPullQPS: -1 }, {}, 'registryPullQPS', '(--registry-qps)'],
  ['negative registryBurst', { registryBurst: -1 }, {}, 'registryBurst', '(--registry-burst)'],
  ['oomScoreAdj out of range', { oomScoreAdj: -1001 }, {}, 'oomScoreAdj', 'must be between -1000 and 1000'],
  ['image GC high out of range', { imageGCHighThresholdPercent: 101 }, {}, 'imageGCHighThresholdPercent', 'must be between 0 and 100'],
  ['image GC low not below high', { imageGCLowThresholdPercent: 90, imageGCHighThresholdPercent: 85 }, {}, 'imageGCLowThresholdPercent', 'must be less than imageGCHighThresholdPercent'],
  ['imageMaximumGCAge not above minimum', { imageMaximumGCAge: '1m', imageMinimumGCAge: '2m' }, {}, 'imageMaximumGCAge', 'must be greater than imageMinimumGCAge'],
  ['negative imageMinimumGCAge', { imageMinimumGCAge: '-1m' }, {}, 'imageMinimumGCAge', 'must not be negative'],
  ['nodeStatusMaxImages below -1', { nodeStatusMaxImages: -2 }, {}, 'nodeStatusMaxImages', 'must be -1 or greater'],
  ['negative maxOpenFiles', { maxOpenFiles: -1 }, {}, 'maxOpenFiles', '(--max-open-files)'],
  ['negative podsPerCore', { podsPerCore: -1 }, {}, 'podsPerCore', '(--pods-per-core)'],
  ['iptablesDropBit out of range', { iptablesDropBit: 32 }, {}, 'iptablesDropBit', 'must be between 0 and 31'],
  ['iptablesMasqueradeBit out of range', { iptablesMasqueradeBit: -1 }, {}, 'iptablesMasqueradeBit', 'must be between 0 and 31'],
  ['systemCgroups without cgroupRoot', { systemCgroups: '/system' }, {}, 'systemCgroups', 'cgroupRoot (--cgroup-root) was not specified'],
  ['runOnce', { runOnce: true }, {}, 'runOnce', 'Runonce mode has been deprecated and should not be set'],
  ['cpuCFSQuotaPeriod without its gate', { cpuCFSQuotaPeriod: '50ms' }, {}, 'cpuCFSQuotaPeriod', 'requires feature gate CustomCPUCFSQuotaPeriod'],
  ['cpuCFSQuotaPeriod out of range', { cpuCFSQuotaPeriod: '2s' }, { CustomCPUCFSQuotaPeriod: true }, 'cpuCFSQuotaPeriod', 'must be between 1ms and 1sec'],
  ['maxParallelImagePulls zero', { maxParallelImagePulls: 0 }, {}, 'maxParallelImagePulls', 'must be a positive number'],
  ['parallel pulls with serialized pulls', { maxParallelImagePulls: 3, serializeImagePulls: true }, {}, 'maxParallelImagePulls', 'unless SerializeImagePulls'],
  ['serverTLSBootstrap without gate', { serverTLSBootstrap: true }, { RotateKubeletServerCertificate: false }, 'serverTLSBootstrap', 'requires feature gate RotateKubeletServerCertificate'],
  ['bad topologyManagerPolicy', { topologyManagerPolicy: 'strict' }, {}, 'topologyManagerPolicy', '"strict" must be one of'],
  ['bad topologyManagerScope', { topologyManagerScope: 'node' }, {}, 'topologyManagerScope', '"node" must be one of'],
  ['unknown topology manager option', { topologyManagerPolicyOptions: { 'prefer-nothing': 'true' } }, {}, 'topologyManagerPolicyOptions', 'unknown Topology Manager Policy option: "prefer-nothing"'],
  ['alpha topology manager option without its gate', { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }, {}, 'topologyManagerPolicyOptions', 'Alpha-level Options not enabled, but option "prefer-closest-numa-nodes" provided'],
  ['topology manager option not a bool', { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'yes' } }, { TopologyManagerPolicyAlphaOptions: true }, 'topologyManagerPolicyOptions', 'bad value for option "prefer-closest-numa-nodes": strconv.ParseBool: parsing "yes": invalid syntax'],
  ['topology manager options without their gate', { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }, { TopologyManagerPolicyOptions: false, TopologyManagerPolicyAlphaOptions: true }, 'topologyManagerPolicyOptions', 'requires feature gate TopologyManagerPolicyOptions'],
  ['bad hairpinMode', { hairpinMode: 'loop' }, {}, 'hairpinMode', 'option "loop" specified for hairpinMode'],
  ['critical pods grace above grace', { shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '20s' }, {}, 'shutdownGracePeriodCriticalPods', 'must be <= shutdownGracePeriod'],
  ['shutdownGracePeriod below a second', { shutdownGracePeriod: '500ms' }, {}, 'shutdownGracePeriod', 'must be either zero or otherwise >= 1 sec'],
  ['both shutdown styles', { shutdownGracePeriod: '30s', shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 10 }] }, {}, 'shutdownGracePeriodByPodPriority', 'Cannot specify both'],
  ['bad swapBehavior', { memorySwap: { swapBehavior: 'UnlimitedSwap' } }, {}, 'memorySwap.swapBehavior', 'must be one of'],
  ['restart period above 300s', { crashLoopBackOff: { maxContainerRestartPeriod: '10m' } }, {}, 'crashLoopBackOff.maxContainerRestartPeriod', 'must be set between 1s and 300s'],
  ['restart period without its gate', { crashLoopBackOff: { maxContainerRestartPeriod: '10s' } }, { KubeletCrashLoopBackOffMax: false }, 'crashLoopBackOff.maxContainerRestartPeriod', 'not enabled'],
  ['unknown enforcement', { enforceNodeAllocatable: ['pods', 'everything'] }, {}, 'enforceNodeAllocatable', 'option "everything" specified for enforceNodeAllocatable'],
  ['duplicate enforcement', { enforceNodeAllocatable: ['pods', 'pods'] }, {}, 'enforceNodeAllocatable', 'duplicated enforcements "pods"'],
  ['none with more', { enforceNodeAllocatable: ['none', 'pods'] }, {}, 'enforceNodeAllocatable', 'may not contain additional enforcements'],
  ['kube-reserved enforcement without cgroup', { enforceNodeAllocatable: ['kube-reserved'] }, {}, 'kubeReservedCgroup', 'must be specified when "kube-reserved"'],
  ['enforcement without cgroupsPerQOS', { enforceNodeAllocatable: ['pods'], cgroupsPerQOS: false }, {}, 'cgroupsPerQOS', 'must be set to true when "pods"'],
  ['reservedSystemCPUs unparsable', { reservedSystemCPUs: '3-1' }, {}, 'reservedSystemCPUs', 'unable to parse reservedSystemCPUs'],
  ['reserved memory of an unsupported type', { reservedMemory: [{ numaNode: 0, limits: { cpu: '1' } }] }, {}, 'reservedMemory[0].limits.cpu', 'is not supported'],
  ['bad pull credential policy', { imagePullCredentialsVerificationPolicy: 'Sometimes' }, {}, 'imagePullCredentialsVerificationPolicy', 'option "Sometimes"'],
  ['memoryThrottlingFactor above 1', { memoryThrottlingFactor: 1.5 }, {}, 'memoryThrottlingFactor', 'must be greater than 0 and less than or equal to 1.0'],
  ['TieredReservation without MemoryQoS', { memoryReservationPolicy: 'TieredReservation' }, {}, 'memoryReservationPolicy', 'requires MemoryQoS feature gate'],
  ['system log query without its gate', { enableSystemLogQuery: true }, {}, 'enableSystemLogQuery', 'NodeLogQuery feature gate is required'],
  ['containerLogMaxFiles of 1', { containerLogMaxFiles: 1 }, {}, 'containerLogMaxFiles', 'must be greater than 1'],
  ['containerLogMaxWorkers of 0', { containerLogMaxWorkers: 0 }, {}, 'containerLogMaxWorkers', 'greater than or equal to 1'],
  ['containerLogMonitorInterval below 3s', { containerLogMonitorInterval: '1s' }, {}, 'containerLogMonitorInterval', 'greater than or equal to 3s'],
  ['relative podLogsDir', { podLogsDir: 'logs' }, {}, 'podLogsDir', 'must be absolute path'],
  ['unclean podLogsDir', { podLogsDir: '/var/log/../pods/' }, {}, 'podLogsDir', 'must be normalized'],
  ['taint with a bad key', { registerWithTaints: [{ key: 'bad key', effect: 'NoSchedule' }] }, {}, 'registerWithTaints[0]', 'invalid taint'],
  ['showHiddenMetricsForVersion too old', { showHiddenMetricsForVersion: '1.20' }, {}, 'showHiddenMetricsForVersion', "must be omitted or have the value '1.34'"],
  ['unsupported logging format', { logging: { format: 'yaml' } }, {}, 'logging.format', 'Unsupported value: "yaml"'],
  ['tracing sampling rate', { tracing: { samplingRatePerMillion: 2_000_000 } }, {}, 'tracing.samplingRatePerMillion', 'between 0 and 1,000,000'],
  ['bad kubeReserved quantity (kubelet-ts: Go fails later)', { kubeReserved: { cpu: 'lots' } }, {}, 'kubeReserved.cpu', 'not a valid quantity'],
  ['bad eviction threshold (kubelet-ts: Go fails later)', { evictionHard: { 'memory.available': '110%' } }, {}, 'evictionHard.memory.available', 'percentage between 0% and 100%'],
  ['negative syncFrequency (Go: NewMainKubelet)', { syncFrequency: '-1s' }, {}, 'syncFrequency', 'syncFrequency (--sync-frequency) -1s must be greater than zero'],
  ['negative fileCheckFrequency, which would busy-poll staticPodPath (#14)', { fileCheckFrequency: '-10s' }, {}, 'fileCheckFrequency', 'fileCheckFrequency (--file-check-frequency) -10s must be greater than zero'],
  ['unknown cgroupDriver (kubelet-ts: Go fails later)', { cgroupDriver: 'cgroupfs2' }, {}, 'cgroupDriver', 'must be "cgroupfs" or "systemd"'],
  // Refused by the Go kubelet during start-up; here with the rest (issue 14, item 5).
  ...['abc', '10Qi', '-5Mi', '1.5.5Gi', 'NaN', '0'].map((v): InvalidRow => [`containerLogMaxSize ${v}`, { containerLogMaxSize: v }, {}, 'containerLogMaxSize', `${JSON.stringify(v)} must be a positive quantity`]),
  ['negative systemReserved', { systemReserved: { memory: '-1Gi' } }, {}, 'systemReserved.memory', 'resource quantity for "memory" cannot be negative: -1Gi'],
  ['negative kubeReserved', { kubeReserved: { cpu: '-100m' } }, {}, 'kubeReserved.cpu', 'cannot be negative'],
  ['unknown eviction signal', { evictionHard: { 'bogus.signal': '10%' } }, {}, 'evictionHard.bogus.signal', 'unsupported eviction signal bogus.signal'],
  ['unknown cpuManagerPolicy', { cpuManagerPolicy: 'bogus' }, {}, 'cpuManagerPolicy', 'unknown policy: "bogus"'],
  ['unknown memoryManagerPolicy', { memoryManagerPolicy: 'x' }, {}, 'memoryManagerPolicy', 'unknown policy: "x"'],
  ['unknown authorization mode', { authorization: { mode: 'Bogus' } }, {}, 'authorization.mode', 'unknown authorization mode "Bogus"'],
  ['qosReserved over 100%', { qosReserved: { memory: '200%' } }, {}, 'qosReserved.memory', 'between 0% and 100%'],
  ['qosReserved of cpu', { qosReserved: { cpu: '10%' } }, {}, 'qosReserved.cpu', 'only memory is supported'],
  ['bad allowedUnsafeSysctls pattern', { allowedUnsafeSysctls: ['net.core.*', 'Kernel/Bad!'] }, {}, 'allowedUnsafeSysctls[1]', 'not a valid sysctl pattern'],
  ['allowedUnsafeSysctls not namespaced', { allowedUnsafeSysctls: ['net.core.*', 'vm.swappiness'] }, {}, 'allowedUnsafeSysctls[1]', 'are not known to be namespaced'],
  ['reservedMemory not a quantity', { reservedMemory: [{ numaNode: 0, limits: { memory: 'lots' } }] }, {}, 'reservedMemory[0].limits.memory', 'must be a non-negative quantity'],
];

describe('validateKubeletConfiguration (pkg/kubelet/apis/config/validation/validation.go)', () => {
  it('accepts the defaults', () => {
    expect(validate({})).toEqual([]);
  });

  it.each(INVALID)('rejects %s', (_name, doc, gates, field, message) => {
    const errors = validate(doc, gates);
    expect(errors.map((e) => e.field)).toContain(field);
    expect(errors.find((e) => e.field === field)?.message).toContain(message);
  });

  it('has at least 25 distinct invalid configurations', () => {
    expect(new Set(INVALID.map((row) => row[0])).size).toBeGreaterThanOrEqual(25);
  });

  it('reports every invalid field of one configuration together', () => {
    const errors = validate({ maxPods: -1, port: 70000, oomScoreAdj: 2000, hairpinMode: 'x', runOnce: true });
    expect(errors.map((e) => e.field).sort()).toEqual(['hairpinMode', 'maxPods', 'oomScoreAdj', 'port', 'runOnce']);
    expect(errors.every((e) => e.message.startsWith('invalid configuration: '))).toBe(true);
  });

  it('rejects an empty containerRuntimeEndpoint set after defaulting (e.g. by --container-runtime-endpoint=)', () => {
    const gates = resolveFeatureGates().gates;
    const cfg = applyKubeletConfigurationDefaults({}, gates);
    cfg.containerRuntimeEndpoint = '';
    expect(validateKubeletConfiguration(cfg, gates)).toEqual([
      { field: 'containerRuntimeEndpoint', value: '', message: 'invalid configuration: the containerRuntimeEndpoint was not specified or empty' },
    ]);
  });

  it('refuses the same values given as flags, every field named (issue 14, item 5)', () => {
    const { errors } = buildEffectiveConfig({ parsed: parseCommandLine(['--eviction-hard=bogus<1Gi', '--kube-reserved=memory=-1Gi', '--cpu-manager-policy=bogus', '--container-log-max-size=abc']) });
    expect(errors.map((e) => e.field).sort()).toEqual(['containerLogMaxSize', 'cpuManagerPolicy', 'evictionHard.bogus', 'kubeReserved.memory']);
  });

  it('accepts a topology manager option once the gate of its stage is on', () => {
    expect(validate({ topologyManagerPolicy: 'restricted', topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }, { TopologyManagerPolicyAlphaOptions: true })).toEqual([]);
  });

  it('accepts the values Go accepts', () => {
    expect(validate({
      containerLogMaxSize: '50Mi', cpuManagerPolicy: 'static', memoryManagerPolicy: 'Static', authorization: { mode: 'AlwaysAllow' },
      qosReserved: { memory: '50%' }, allowedUnsafeSysctls: ['net.core.somaxconn', 'kernel.shm*', 'net/ipv4/*'],
      evictionHard: { 'memory.available': '100Mi', 'nodefs.inodesFree': '5%', 'pid.available': '10%' },
    })).toEqual([]);
  });

  it('accepts the boundary values', () => {
    expect(validate({ maxPods: 0, port: 65535, oomScoreAdj: -1000, imageGCHighThresholdPercent: 100, imageGCLowThresholdPercent: 0, nodeStatusMaxImages: -1 })).toEqual([]);
  });
});

// cmd/kubelet/app/options/options.go ValidateKubeletFlags
describe('validateKubeletFlags', () => {
  const flags = (labels: string) => parseCommandLine([`--node-labels=${labels}`]).flags;

  it.each([
    'kubernetes.io/hostname=n1',
    'node.kubernetes.io/instance-type=big',
    'team.node.kubernetes.io/owner=me',
    'kubelet.kubernetes.io/x=y',
    'example.com/role=db',
    'plain=value',
  ])('accepts %s', (label) => {
    expect(validateKubeletFlags(flags(label))).toEqual([]);
  });

  it('rejects labels in the kubernetes.io and k8s.io namespaces the kubelet may not set', () => {
    const errors = validateKubeletFlags(flags('node-role.kubernetes.io/master=,x.k8s.io/y=z'));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('--node-labels');
    expect(errors[0]?.message).toContain("unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [node-role.kubernetes.io/master x.k8s.io/y]");
  });

  it('accepts no cloud provider or an external one and rejects a built-in one', () => {
    expect(validateKubeletFlags(parseCommandLine(['--cloud-provider=external']).flags)).toEqual([]);
    const errors = validateKubeletFlags(parseCommandLine(['--cloud-provider=gce']).flags);
    expect(errors.map((e) => e.field)).toEqual(['--cloud-provider']);
    expect(errors[0]?.message).toContain('cloud provider "gce" was specified, but built-in cloud providers are disabled');
  });

  it('rejects an invalid label key and value', () => {
    const errors = validateKubeletFlags(flags('-bad=ok,good=-bad-'));
    expect(errors.map((e) => e.value)).toEqual(['-bad', '-bad-']);
    expect(errors.every((e) => e.message.startsWith('invalid node labels:'))).toBe(true);
  });
});
