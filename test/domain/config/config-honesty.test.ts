import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { configzBody } from '../../../src/domain/config/configz.js';
import { buildEffectiveConfig } from '../../../src/domain/config/effective.js';
import { ELSEWHERE, HAS, LACKS, reportedFeatureGates } from '../../../src/domain/config/feature-gate-support.js';
import { KNOWN_FEATURE_GATES, resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';
import { FIELD_SUPPORT } from '../../../src/domain/config/field-support.js';
import { describeNotHonoured } from '../../../src/domain/config/not-honoured.js';
import { KUBELET_CONFIGURATION_SCHEMA } from '../../../src/domain/config/schema.js';

const head = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
const withFile = (file: Record<string, unknown>, argv: string[] = []) =>
  buildEffectiveConfig({ parsed: parseCommandLine(['--config=/etc/kubernetes/kubelet.yaml', ...argv]), file: { ...head, ...file }, fileName: '/etc/kubernetes/kubelet.yaml' });

describe('the table of what kubelet-ts acts on', () => {
  it('has a decision for every field of the schema, and no field the schema lacks', () => {
    expect(Object.keys(FIELD_SUPPORT).sort()).toEqual(Object.keys(KUBELET_CONFIGURATION_SCHEMA).sort());
  });

  it('puts every known feature gate in exactly one list, and names no gate that does not exist', () => {
    const lists = [HAS, LACKS, ELSEWHERE];
    for (const name of KNOWN_FEATURE_GATES.keys()) {
      expect({ name, places: lists.filter((l) => l.has(name)).length }).toEqual({ name, places: 1 });
    }
    for (const list of lists) for (const name of list) expect(KNOWN_FEATURE_GATES.has(name), name).toBe(true);
  });
});

describe('settings accepted but not acted on', () => {
  it('says nothing of a kubeadm-style configuration that sets only what kubelet-ts honours', () => {
    const built = withFile({ cgroupDriver: 'cgroupfs', clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', rotateCertificates: true });
    expect(built.errors).toEqual([]);
    expect(built.notHonoured).toEqual([]);
  });

  it('accepts cpuManagerPolicy static with reservedSystemCPUs, and still refuses memorySwap LimitedSwap beside it', () => {
    const built = withFile({ cpuManagerPolicy: 'static', memorySwap: { swapBehavior: 'LimitedSwap' }, reservedSystemCPUs: '0' });
    expect(built.errors.map((e) => e.field)).toEqual(['memorySwap']);
  });

  it('accepts protectKernelDefaults as kubeadm and CIS benchmarks set it, without a warning', () => {
    const built = withFile({ protectKernelDefaults: true });
    expect(built.errors).toEqual([]);
    expect(built.notHonoured).toEqual([]);
  });

  it('warns once for each ignored field set to something other than its default', () => {
    const built = withFile({ containerLogMaxSize: '50Mi', podsPerCore: 10, maxOpenFiles: 4096, providerID: 'aws:///i-1' });
    expect(built.errors).toEqual([]);
    // containerLogMaxSize is acted on (the container log manager): no warning for it.
    expect(built.notHonoured.map((w) => w.field)).toEqual(['maxOpenFiles', 'podsPerCore', 'providerID']);
    const line = describeNotHonoured(built.notHonoured.find((w) => w.field === 'podsPerCore')!);
    expect(line).toBe('podsPerCore: 10 is accepted but not acted on by kubelet-ts (the Go kubelet would cap maxPods at podsPerCore times the number of cores)');
  });

  it('does not warn for an ignored field given its default value explicitly', () => {
    expect(withFile({ podsPerCore: 0, providerID: '', maxOpenFiles: 1000000 }).notHonoured).toEqual([]);
    expect(withFile({ podsPerCore: 0, maxOpenFiles: 4096 }).notHonoured.map((w) => w.field)).toEqual(['maxOpenFiles']);
  });

  it('refuses only the stricter values where a policy kubelet-ts matches exists', () => {
    expect(withFile({ imagePullCredentialsVerificationPolicy: 'NeverVerify' }).errors).toEqual([]);
    expect(withFile({ imagePullCredentialsVerificationPolicy: 'AlwaysVerify' }).errors.map((e) => e.field)).toEqual(['imagePullCredentialsVerificationPolicy']);
    expect(withFile({ failSwapOn: false }).notHonoured).toEqual([]);
  });

  it('accepts the topology and memory managers\' settings, which it now acts on', () => {
    const built = withFile({
      topologyManagerPolicy: 'single-numa-node', topologyManagerScope: 'pod', memoryManagerPolicy: 'Static',
      reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi' } }],
    });
    expect(built.errors).toEqual([]);
    expect(built.notHonoured).toEqual([]);
  });

  it('accepts seccompDefault, which now sends RuntimeDefault for every profile-less container', () => {
    const built = withFile({ seccompDefault: true });
    expect(built.errors).toEqual([]);
    expect(built.notHonoured).toEqual([]);
  });

  it('warns for the parts of logging it ignores, not for the verbosity --v sets', () => {
    const built = withFile({ logging: { format: 'json' } }, ['--v=3']);
    expect(built.notHonoured.map((w) => w.field)).toEqual(['logging.format']);
  });

  it('refuses a gate of a feature kubelet-ts lacks when it is set on, from the file or the flags', () => {
    const built = withFile({ featureGates: { MemoryQoS: true, EventedPLEG: false } }, ['--feature-gates=KubeletPSI=true']);
    expect(built.errors.map((e) => e.field).sort()).toEqual(['--feature-gates.KubeletPSI', 'featureGates.MemoryQoS']);
    expect(withFile({ featureGates: { KubeletPSI: false, NFTablesProxyMode: true } }).errors).toEqual([]);
  });
});

describe('reported feature gates', () => {
  it('reports a lacking feature off even where Go defaults it on, and leaves the others as resolved', () => {
    const resolved = resolveFeatureGates().gates;
    expect(resolved.KubeletPSI).toBe(true);
    const reported = reportedFeatureGates(resolved);
    expect(reported.KubeletPSI).toBe(false);
    expect(reported.SidecarContainers).toBe(true);
    expect(reported.NFTablesProxyMode).toBe(true);
  });

  it('marks them in /configz beside the settings not acted on', () => {
    const built = withFile({ podsPerCore: 4 });
    const body = configzBody(built.config, built.gates, built.notHonoured);
    expect(body.kubeletTs.notActedOn.map((w) => w.field)).toEqual(['podsPerCore']);
    expect(body.kubeletTs.featureGatesReportedOff).toContain('KubeletPSI');
    expect(body.kubeletTs.featureGatesReportedOff).not.toContain('SidecarContainers');
  });
});

describe('graceful node shutdown settings', () => {
  it('acts on shutdownGracePeriod, shutdownGracePeriodCriticalPods and their gates', () => {
    const built = withFile({ shutdownGracePeriod: '20s', shutdownGracePeriodCriticalPods: '10s', featureGates: { GracefulNodeShutdown: true } });
    expect(built.errors).toEqual([]);
    expect(built.notHonoured).toEqual([]);
    expect(reportedFeatureGates(resolveFeatureGates().gates).GracefulNodeShutdown).toBe(true);
  });
});
