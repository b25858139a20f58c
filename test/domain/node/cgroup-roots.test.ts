import { describe, expect, it } from 'vitest';
import {
  computeCgroupRoots, parseCgroupfsName, parseSystemdName, toSystemd, validateCgroupConfig, type CgroupConfig,
} from '../../../src/domain/node/cgroup-roots.js';

/** The Go kubelet's defaults for these fields. */
const DEFAULTS: CgroupConfig = {
  cgroupRoot: '',
  cgroupsPerQOS: true,
  cgroupDriver: 'cgroupfs',
  enforceNodeAllocatable: ['pods'],
  kubeReservedCgroup: '',
  systemReservedCgroup: '',
  kubeletCgroups: '',
  systemCgroups: '',
};

describe('computeCgroupRoots', () => {
  it('defaults --cgroup-root to / with cgroupsPerQOS and puts pods under /kubepods (cgroupfs)', () => {
    const roots = computeCgroupRoots(DEFAULTS);
    expect(roots.cgroupRoot).toBe('/');
    expect(roots.cgroupRootDefaulted).toBe(true);
    expect(roots.nodeAllocatableRoot).toEqual({ components: ['kubepods'], name: '/kubepods' });
    expect(roots.qos).toEqual({
      guaranteed: { components: ['kubepods'], name: '/kubepods' },
      burstable: { components: ['kubepods', 'burstable'], name: '/kubepods/burstable' },
      bestEffort: { components: ['kubepods', 'besteffort'], name: '/kubepods/besteffort' },
    });
  });

  it('names the same cgroups as systemd slices with the systemd driver', () => {
    const roots = computeCgroupRoots({ ...DEFAULTS, cgroupDriver: 'systemd' });
    expect(roots.nodeAllocatableRoot.name).toBe('/kubepods.slice');
    expect(roots.qos?.burstable.name).toBe('/kubepods.slice/kubepods-burstable.slice');
    expect(roots.qos?.bestEffort.name).toBe('/kubepods.slice/kubepods-besteffort.slice');
  });

  it('nests under a given --cgroup-root, escaping dashes for systemd', () => {
    expect(computeCgroupRoots({ ...DEFAULTS, cgroupRoot: '/k8s/node-a' }).qos?.burstable.name).toBe('/k8s/node-a/kubepods/burstable');
    expect(computeCgroupRoots({ ...DEFAULTS, cgroupRoot: '/k8s/node-a', cgroupDriver: 'systemd' }).qos?.burstable.name).toBe(
      '/k8s.slice/k8s-node_a.slice/k8s-node_a-kubepods.slice/k8s-node_a-kubepods-burstable.slice',
    );
  });

  it('uses --cgroup-root itself and no QoS cgroups without cgroupsPerQOS', () => {
    const roots = computeCgroupRoots({ ...DEFAULTS, cgroupsPerQOS: false, enforceNodeAllocatable: [], cgroupRoot: '/pods' });
    expect(roots.cgroupRootDefaulted).toBe(false);
    expect(roots.nodeAllocatableRoot).toEqual({ components: ['pods'], name: '/pods' });
    expect(roots.qos).toBeNull();
  });

  it('reads reserved cgroups in the driver\'s form', () => {
    const config = { ...DEFAULTS, enforceNodeAllocatable: ['pods', 'kube-reserved', 'system-reserved'] };
    const fs = computeCgroupRoots({ ...config, kubeReservedCgroup: '/kube-reserved', systemReservedCgroup: '/system' });
    expect(fs.kubeReservedCgroup).toEqual({ components: ['kube-reserved'], name: '/kube-reserved' });
    const sd = computeCgroupRoots({ ...config, cgroupDriver: 'systemd', kubeReservedCgroup: '/kube-reserved.slice', systemReservedCgroup: '/system.slice' });
    expect(sd.kubeReservedCgroup).toEqual({ components: ['kube', 'reserved'], name: '/kube.slice/kube-reserved.slice' });
    expect(sd.systemReservedCgroup).toEqual({ components: ['system'], name: '/system.slice' });
  });

  it('fails with every problem listed under KLT_ERR_CONFIG_INVALID', () => {
    expect(() => computeCgroupRoots({ ...DEFAULTS, enforceNodeAllocatable: ['kube-reserved', 'bogus'] })).toThrow(
      expect.objectContaining({
        code: 'KLT_ERR_CONFIG_INVALID',
        message: expect.stringMatching(/kubeReservedCgroup .*; invalid configuration: option "bogus"/),
      }),
    );
  });

  it('refuses a --cgroup-root that systemd cannot name instead of panicking like Go', () => {
    expect(() => computeCgroupRoots({ ...DEFAULTS, cgroupRoot: '/a//b', cgroupDriver: 'systemd' })).toThrow(
      expect.objectContaining({ code: 'KLT_ERR_CONFIG_INVALID' }),
    );
  });
});

describe('validateCgroupConfig', () => {
  it('accepts the defaults', () => {
    expect(validateCgroupConfig(DEFAULTS)).toEqual([]);
  });

  it.each<[string, Partial<CgroupConfig>, string]>([
    ['kube-reserved without its cgroup', { enforceNodeAllocatable: ['pods', 'kube-reserved'] },
      'invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)'],
    ['system-reserved without its cgroup', { enforceNodeAllocatable: ['system-reserved'] },
      'invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)'],
    ['none with others', { enforceNodeAllocatable: ['none', 'pods'] },
      'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified'],
    ['an unknown key', { enforceNodeAllocatable: ['cpu'] },
      'invalid configuration: option "cpu" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"'],
    ['enforcement without cgroupsPerQOS', { cgroupsPerQOS: false },
      'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true'],
    ['systemCgroups without cgroupRoot', { systemCgroups: '/system' },
      'invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified'],
    ['an unknown driver', { cgroupDriver: 'cgroupv2' },
      'invalid configuration: cgroupDriver (--cgroup-driver) "cgroupv2" must be "cgroupfs" or "systemd"'],
  ])('reports %s with Go\'s message', (_name, change, message) => {
    expect(validateCgroupConfig({ ...DEFAULTS, ...change })).toEqual([message]);
  });

  it('accepts kube-reserved with its cgroup, and a lone none', () => {
    expect(validateCgroupConfig({ ...DEFAULTS, enforceNodeAllocatable: ['pods', 'kube-reserved'], kubeReservedCgroup: '/kube' })).toEqual([]);
    expect(validateCgroupConfig({ ...DEFAULTS, enforceNodeAllocatable: ['none'] })).toEqual([]);
  });
});

describe('cgroup name conversions', () => {
  it.each([
    ['/', []],
    ['', []],
    ['/kubepods/burstable', ['kubepods', 'burstable']],
    ['kubepods', ['kubepods']],
  ])('parses cgroupfs %j', (name, components) => {
    expect(parseCgroupfsName(name)).toEqual(components);
  });

  it.each([
    ['/kubepods.slice/kubepods-burstable.slice', ['kubepods', 'burstable']],
    ['/system.slice', ['system']],
    ['/a_b.slice', ['a-b']],
    ['/', []],
  ])('parses systemd %j', (name, components) => {
    expect(parseSystemdName(name)).toEqual(components);
  });

  it('round-trips through systemd naming', () => {
    const components = ['kubepods', 'pod-1', 'x'];
    expect(parseSystemdName(toSystemd(components))).toEqual(components);
    expect(toSystemd([])).toBe('/');
  });
});
