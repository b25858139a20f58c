import { describe, expect, it } from 'vitest';
import { admitResources } from '../../../src/domain/resource-managers/admit.js';
import { allocateStatic, containerCpuHints, guaranteedCpus, podCpuHints } from '../../../src/domain/resource-managers/cpu-static-policy.js';
import { EMPTY_INVENTORY, type ResourceInventory } from '../../../src/domain/resource-managers/inventory.js';
import { sharedCpuPool } from '../../../src/domain/resource-managers/cpu-pool.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { inventory, machine } from './topologies.js';

const container = (name: string, cpu: string, memory = '64Mi'): Container => ({
  name, image: 'busybox', resources: { requests: { cpu, memory }, limits: { cpu, memory } },
});
const pod = (uid: string, containers: Container[], initContainers: Container[] = []): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}) },
});
const burstable = (uid: string): Pod => pod(uid, [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '1' } } }]);

const dualSocketHT = machine(2, 4, 2);
const cpus = inventory(dualSocketHT, [0, 8]);
const withCpus = (cpu = cpus): ResourceInventory => ({ ...EMPTY_INVENTORY, cpu });

describe('the static CPU policy', () => {
  it.each([
    ['a Guaranteed container with a whole cpu request', container('c', '2'), 2],
    ['a Guaranteed container with a fractional request', container('c', '1500m'), 0],
    ['a Guaranteed container with 1000m', container('c', '1000m'), 1],
  ])('counts the CPUs of %s', (_what, c, n) => {
    expect(guaranteedCpus(pod('p', [c]), c)).toBe(n);
  });

  it('gives a Burstable pod no CPUs of its own', () => {
    const p = burstable('b');
    expect(allocateStatic(cpus, p, p.spec.containers[0]!, {}, {}, null)).toEqual({ ok: true, cpus: null });
  });

  it('gives a Guaranteed container whole cores, never the reserved ones, nor another pod\'s', () => {
    const p = pod('g', [container('main', '2')]);
    expect(allocateStatic(cpus, p, p.spec.containers[0]!, {}, {}, null)).toEqual({ ok: true, cpus: [1, 9] });
    expect(allocateStatic(cpus, p, p.spec.containers[0]!, { other: { x: { cpus: [1, 9] } } }, {}, null)).toEqual({ ok: true, cpus: [2, 10] });
  });

  it('lets the app containers reuse the CPUs of the pod\'s init containers', () => {
    const p = pod('g', [container('a', '2'), container('b', '2')], [container('init', '2')]);
    const result = admitResources({ pod: p, inventory: withCpus(), assignments: {} });
    expect(result).toEqual({ admit: true, assignment: { init: { cpus: [1, 9] }, a: { cpus: [1, 9] }, b: { cpus: [2, 10] } } });
  });

  it('takes from the NUMA nodes of the merged affinity first', () => {
    const p = pod('g', [container('main', '2')]);
    expect(allocateStatic(cpus, p, p.spec.containers[0]!, {}, {}, { numaNodes: [1], preferred: true })).toEqual({ ok: true, cpus: [4, 12] });
  });

  it("refuses a request that is not whole cores with full-pcpus-only, with Go's SMTAlignmentError", () => {
    const p = pod('g', [container('main', '1')]);
    const result = admitResources({ pod: p, inventory: withCpus(inventory(dualSocketHT, [0, 8], { fullPcpusOnly: true })), assignments: {} });
    expect(result).toEqual({
      admit: false, reason: 'SMTAlignmentError', message: 'Allocate failed due to SMT Alignment Error: requested 1 cpus not multiple cpus per core = 2, which is unexpected', container: 'main', provider: 'cpu',
    });
  });

  it("refuses a pod when too few CPUs are free, with Go's UnexpectedAdmissionError", () => {
    const p = pod('g', [container('main', '15')]);
    expect(admitResources({ pod: p, inventory: withCpus(), assignments: {} })).toEqual({
      admit: false, reason: 'UnexpectedAdmissionError', message: 'Allocate failed due to not enough cpus available to satisfy request, which is unexpected', container: 'main', provider: 'cpu',
    });
  });

  it('shrinks the shared pool by the exclusive CPUs only: the reserved CPUs stay in it', () => {
    expect(sharedCpuPool(cpus, { g: { main: { cpus: [1, 9] } } })).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15]);
  });

  it('gives one CPU alone on a 2-core machine with CPU 0 reserved, and a second such pod nothing', () => {
    const small = inventory(machine(1, 2, 1), [0]);
    const first = admitResources({ pod: pod('g1', [container('main', '1')]), inventory: withCpus(small), assignments: {} });
    expect(first).toEqual({ admit: true, assignment: { main: { cpus: [1] } } });
    const second = admitResources({ pod: pod('g2', [container('main', '1')]), inventory: withCpus(small), assignments: { g1: { main: { cpus: [1] } } } });
    expect(second).toMatchObject({ admit: false, reason: 'UnexpectedAdmissionError' });
  });
});

describe('the static CPU policy’s topology hints', () => {
  const c = container('main', '2');
  it('prefers each single NUMA node with room, and offers both together', () => {
    expect(containerCpuHints(cpus, pod('g', [c]), c, {}, {})).toEqual({ cpu: [
      { numaNodes: [0], preferred: true }, { numaNodes: [1], preferred: true }, { numaNodes: [0, 1], preferred: false },
    ] });
  });

  it('offers only the nodes that still have room', () => {
    const held = { other: { x: { cpus: [1, 2, 3, 9, 10, 11] } } };
    expect(containerCpuHints(cpus, pod('g', [c]), c, held, {})).toEqual({ cpu: [{ numaNodes: [1], preferred: true }, { numaNodes: [0, 1], preferred: false }] });
  });

  it('prefers both nodes together when no single one can hold the request', () => {
    const big = container('main', '10');
    expect(containerCpuHints(cpus, pod('g', [big]), big, {}, {})).toEqual({ cpu: [{ numaNodes: [0, 1], preferred: true }] });
  });

  it('has no preference for a container without exclusive CPUs', () => {
    const p = burstable('b');
    expect(containerCpuHints(cpus, p, p.spec.containers[0]!, {}, {})).toEqual({});
  });

  it('answers an empty list when a restarted container holds another number of CPUs than it asks', () => {
    expect(containerCpuHints(cpus, pod('g', [c]), c, {}, { main: { cpus: [1] } })).toEqual({ cpu: [] });
  });

  it('hints for the whole pod in pod scope: the larger of init and app containers', () => {
    const p = pod('g', [container('a', '2'), container('b', '2')], [container('init', '6')]);
    expect(podCpuHints(cpus, p, {}, {})).toEqual({ cpu: [
      { numaNodes: [0], preferred: true }, { numaNodes: [1], preferred: true }, { numaNodes: [0, 1], preferred: false },
    ] });
  });
});

describe('a sidecar (an init container with restartPolicy Always)', () => {
  it('keeps its CPUs: the app containers do not reuse them', () => {
    const sidecar: Container = { ...container('sidecar', '2'), restartPolicy: 'Always' };
    const p = pod('g', [container('a', '2')], [sidecar]);
    expect(admitResources({ pod: p, inventory: withCpus(), assignments: {} })).toEqual({ admit: true, assignment: { sidecar: { cpus: [1, 9] }, a: { cpus: [2, 10] } } });
  });
});
