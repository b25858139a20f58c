import { describe, expect, it } from 'vitest';
import { KNOWN_FEATURE_GATES, describeFeatureGates, resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';

// pkg/features/kube_features.go at v1.35 (defaultVersionedKubernetesFeatureGates).
describe('resolveFeatureGates', () => {
  it.each([
    ['KubeletCrashLoopBackOffMax', true, 'BETA'],
    ['KubeletEnsureSecretPulledImages', true, 'BETA'],
    ['GracefulNodeShutdown', true, 'BETA'],
    ['NodeSwap', true, 'GA'],
    ['CustomCPUCFSQuotaPeriod', false, 'ALPHA'],
    ['MemoryQoS', false, 'ALPHA'],
    ['NodeLogQuery', false, 'BETA'],
    ['RotateKubeletServerCertificate', true, 'BETA'],
    ['EventedPLEG', false, 'ALPHA'],
    ['MaxUnavailableStatefulSet', false, 'BETA'], // turned off again in a v1.35 patch release
    ['RuntimeClassInImageCriApi', false, 'ALPHA'], // the registered name, not Go's constant's
    ['WatchListClient', true, 'BETA'], // client-go's gates, registered by pkg/features
    ['InformerResourceVersion', true, 'GA'],
  ])('knows %s (default %s, %s)', (name, dflt, stage) => {
    expect(KNOWN_FEATURE_GATES.get(name)).toMatchObject({ default: dflt, stage });
    expect(resolveFeatureGates().gates[name]).toBe(dflt);
  });

  // ImageVolumeWithDigest came after v1.35; RouteExternalCertificate is OpenShift's fork only.
  it.each(['RuntimeClassInImageCriAPI', 'ImageVolumeWithDigest', 'RouteExternalCertificate'])('does not know %s, which a v1.35 kubelet does not register', (name) => {
    expect(KNOWN_FEATURE_GATES.has(name)).toBe(false);
  });

  it('lets a later source win over an earlier one', () => {
    const { gates, errors } = resolveFeatureGates(
      { field: 'featureGates', gates: { MemoryQoS: true, EventedPLEG: true } },
      { field: '--feature-gates', gates: { MemoryQoS: false } },
    );
    expect(errors).toEqual([]);
    expect(gates.MemoryQoS).toBe(false);
    expect(gates.EventedPLEG).toBe(true);
  });

  it('names an unknown gate and the source it came from', () => {
    const { errors } = resolveFeatureGates({ field: '--feature-gates', gates: { NoSuchGate: true } });
    expect(errors).toEqual([{ field: '--feature-gates.NoSuchGate', value: true, message: 'unrecognized feature gate: NoSuchGate' }]);
  });

  it('rejects setting a locked gate away from its default', () => {
    const { errors, gates } = resolveFeatureGates({ field: 'featureGates', gates: { NodeSwap: false, SidecarContainers: true } });
    expect(errors.map((e) => e.field)).toEqual(['featureGates.NodeSwap']);
    expect(errors[0]?.message).toBe('cannot set feature gate NodeSwap to false, feature is locked to true');
    expect(gates.NodeSwap).toBe(true);
  });

  it('turns on every alpha gate not set explicitly with AllAlpha', () => {
    const { gates } = resolveFeatureGates({ field: 'featureGates', gates: { AllAlpha: true, MemoryQoS: false } });
    expect(gates.EventedPLEG).toBe(true);
    expect(gates.MemoryQoS).toBe(false);
    expect(gates.NodeLogQuery).toBe(false); // beta, untouched
  });

  it('lists the settable gates for --help', () => {
    const lines = describeFeatureGates();
    expect(lines).toContain('MemoryQoS=true|false (ALPHA - default=false)');
    expect(lines.some((l) => l.startsWith('NodeSwap='))).toBe(false); // GA and locked
  });
});
