import { describe, expect, it } from 'vitest';
import { decodeKubeletConfiguration } from '../../../src/domain/config/decode.js';

const head = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };

describe('decodeKubeletConfiguration', () => {
  it('keeps the given fields and normalises durations to Go spelling', () => {
    const { doc, errors } = decodeKubeletConfiguration({ ...head, maxPods: 10, syncFrequency: '60s', authentication: { anonymous: { enabled: true } } });
    expect(errors).toEqual([]);
    expect(doc).toEqual({ ...head, maxPods: 10, syncFrequency: '1m0s', authentication: { anonymous: { enabled: true } } });
  });

  it.each([
    [{ kind: 'KubeletConfiguration' }, 'apiVersion'],
    [{ apiVersion: 'kubelet.config.k8s.io/v1beta1' }, 'kind'],
    [{ ...head, apiVersion: 'kubelet.config.k8s.io/v1' }, 'apiVersion'],
    [{ ...head, kind: 'KubeProxyConfiguration' }, 'kind'],
  ])('checks apiVersion and kind: %j names %s', (raw, field) => {
    expect(decodeKubeletConfiguration(raw).errors.map((e) => e.field)).toEqual([field]);
  });

  it('leaves out every unknown field and names it by its path, as strict decoding fails and lenient decoding drops it', () => {
    const { doc, errors, unknownFields } = decodeKubeletConfiguration({ ...head, maxPod: 1, maxPods: 7, authentication: { anonymus: {}, anonymous: { enabled: true } }, logging: { options: { yaml: {} } } });
    expect(unknownFields).toEqual(['maxPod', 'authentication.anonymus', 'logging.options.yaml']);
    expect(errors).toEqual([]);
    expect(doc).toEqual({ ...head, maxPods: 7, authentication: { anonymous: { enabled: true } }, logging: { options: {} } });
  });

  it.each([
    ['maxPods', 'ten', 'int32'],
    ['maxPods', 1.5, 'int32'],
    ['maxPods', 2 ** 31, 'int32'],
    ['failSwapOn', 'no', 'bool'],
    ['syncFrequency', 60, 'duration'],
    ['staticPodPath', 7, 'string'],
    ['clusterDNS', '10.0.0.10', '[]string'],
    ['kubeReserved', ['cpu=1'], 'map[string]string'],
    ['featureGates', { A: 'true' }, 'bool'],
    ['memoryThrottlingFactor', '0.9', 'float64'],
  ])('rejects %s: %j as not a %s', (field, value, type) => {
    const { errors } = decodeKubeletConfiguration({ ...head, [field]: value });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toMatch(new RegExp(`^${field}`));
    expect(errors[0]?.message).toContain(type);
  });

  it('names a bad duration with Go\'s parser message', () => {
    const { errors } = decodeKubeletConfiguration({ ...head, nodeStatusUpdateFrequency: '10 s' });
    expect(errors).toEqual([{ field: 'nodeStatusUpdateFrequency', value: '10 s', message: 'time: unknown unit " s" in duration "10 s"' }]);
  });

  it('keeps null on a pointer field (unset) and drops it on any other field', () => {
    const { doc } = decodeKubeletConfiguration({ ...head, healthzPort: null, port: null });
    expect(doc).toEqual({ ...head, healthzPort: null });
  });

  it('checks list items: unknown members and required members', () => {
    const { errors, unknownFields } = decodeKubeletConfiguration({ ...head, registerWithTaints: [{ key: 'a', effect: 'NoSchedule', colour: 'red' }, { value: 'x' }] });
    expect(unknownFields).toEqual(['registerWithTaints[0].colour']);
    expect(errors.map((e) => e.field)).toEqual(['registerWithTaints[1].key', 'registerWithTaints[1].effect']);
  });

  it('leaves out a list item it reported (not an object, or a required member missing), so validation sees whole items', () => {
    // Found by the fuzz suite: registerWithTaints: [""] decoded to [{}], and validating that taint threw.
    const { doc, errors } = decodeKubeletConfiguration({ ...head, registerWithTaints: ['', { value: 'x' }, { key: 'a', effect: 'NoSchedule' }] });
    expect(errors.map((e) => e.field)).toEqual(['registerWithTaints[0]', 'registerWithTaints[1].key', 'registerWithTaints[1].effect']);
    expect(doc.registerWithTaints).toEqual([{ key: 'a', effect: 'NoSchedule' }]);
  });

  it('accepts logging.flushFrequency as integer nanoseconds (TimeOrMetaDuration)', () => {
    expect(decodeKubeletConfiguration({ ...head, logging: { flushFrequency: 2_000_000_000 } }).doc.logging?.flushFrequency).toBe('2s');
  });

  it('rejects a document that is not an object', () => {
    expect(decodeKubeletConfiguration(['a']).errors).toHaveLength(1);
  });
});
