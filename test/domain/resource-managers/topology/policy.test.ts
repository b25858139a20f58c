import { describe, expect, it } from 'vitest';
import type { ProviderHints, TopologyHint, TopologySettings } from '../../../../src/domain/resource-managers/topology/hint.js';
import { mergeHints } from '../../../../src/domain/resource-managers/topology/policy.js';

const h = (numaNodes: number[], preferred = true): TopologyHint => ({ numaNodes, preferred });
const machine = (policy: TopologySettings['policy'], numaNodes: number[], extra: Partial<TopologySettings> = {}): TopologySettings => ({
  policy, scope: 'container', options: {}, numaNodes, distances: {}, ...extra,
});
const two = (policy: TopologySettings['policy']) => machine(policy, [0, 1]);
const four = (policy: TopologySettings['policy'], extra: Partial<TopologySettings> = {}) => machine(policy, [0, 1, 2, 3], extra);

// What a CPU, a device and a memory provider say about one container on two NUMA nodes.
const cpuOnEither: ProviderHints = { cpu: [h([0]), h([1]), h([0, 1], false)] };
const gpuOnNode1: ProviderHints = { 'example.com/gpu': [h([1]), h([0, 1], false)] };
const memoryOnEither: ProviderHints = { memory: [h([0]), h([1]), h([0, 1], false)], 'hugepages-2Mi': [h([0]), h([1]), h([0, 1], false)] };
const cpuNeedsBoth: ProviderHints = { cpu: [h([0, 1])] };

describe('mergeHints', () => {
  it('with the none policy aligns nothing and admits everything', () => {
    expect(mergeHints(two('none'), [cpuOnEither, { gpu: [] }])).toEqual({ affinity: { numaNodes: null, preferred: false }, admit: true });
  });

  it.each(['best-effort', 'restricted', 'single-numa-node'] as const)('under %s puts cpu, device and memory on the one node they share', (policy) => {
    expect(mergeHints(two(policy), [gpuOnNode1, cpuOnEither, memoryOnEither])).toEqual({ affinity: h([1]), admit: true });
  });

  it('prefers the narrowest of the preferred masks, the lower nodes first', () => {
    expect(mergeHints(two('best-effort'), [cpuOnEither, memoryOnEither]).affinity).toEqual(h([0]));
  });

  it('takes a provider without hints as no preference', () => {
    expect(mergeHints(two('restricted'), [null, {}, { cpu: null }, gpuOnNode1])).toEqual({ affinity: h([1]), admit: true });
    expect(mergeHints(two('restricted'), [])).toEqual({ affinity: h([0, 1]), admit: true });
  });

  it('does not prefer the AND of two preferred hints on different nodes', () => {
    const r = mergeHints(two('restricted'), [{ cpu: [h([0, 1])] }, { gpu: [h([0])] }]);
    expect(r).toEqual({ affinity: h([0], false), admit: false });
  });

  describe('a resource no NUMA node can serve (an empty hint list)', () => {
    it.each([
      ['best-effort', true],
      ['restricted', false],
      ['single-numa-node', false],
    ] as const)('under %s merges to the whole machine, not preferred: admit %s', (policy, admit) => {
      const r = mergeHints(two(policy), [cpuOnEither, { 'example.com/gpu': [] }]);
      expect(r.admit).toBe(admit);
      expect(r.affinity.preferred).toBe(false);
    });
  });

  describe('a request that needs both NUMA nodes', () => {
    it('is admitted by restricted, with both nodes', () => {
      expect(mergeHints(two('restricted'), [cpuNeedsBoth, memoryOnEither])).toEqual({ affinity: h([0, 1], false), admit: false });
      expect(mergeHints(two('restricted'), [cpuNeedsBoth, { memory: [h([0, 1])] }])).toEqual({ affinity: h([0, 1]), admit: true });
    });

    it('is refused by single-numa-node, which only merges single-node hints', () => {
      expect(mergeHints(two('single-numa-node'), [cpuNeedsBoth, { memory: [h([0, 1])] }]).admit).toBe(false);
    });
  });

  it('under single-numa-node hands the allocators no affinity when the merge spans the whole machine', () => {
    expect(mergeHints(machine('single-numa-node', [0]), [{ cpu: [h([0])] }, { memory: [h([0])] }])).toEqual({ affinity: { numaNodes: null, preferred: true }, admit: true });
    expect(mergeHints(two('single-numa-node'), [{}])).toEqual({ affinity: { numaNodes: null, preferred: true }, admit: true });
  });

  describe('on four NUMA nodes', () => {
    it('finds the one node every provider can use', () => {
      const cpu: ProviderHints = { cpu: [h([1]), h([2]), h([3]), h([1, 2], false)] };
      const gpu: ProviderHints = { gpu: [h([0]), h([2])] };
      const mem: ProviderHints = { memory: [h([2]), h([3]), h([0, 1], false)] };
      for (const policy of ['best-effort', 'restricted', 'single-numa-node'] as const) {
        expect(mergeHints(four(policy), [gpu, cpu, mem])).toEqual({ affinity: h([2]), admit: true });
      }
    });

    it('among non-preferred merges, aims at the widest of the providers\' narrowest hints', () => {
      // The narrowest hints are one and two nodes wide: the merge settles on two nodes, not one or four.
      const cpu: ProviderHints = { cpu: [h([0, 1], false), h([0, 1, 2, 3], false)] };
      const gpu: ProviderHints = { gpu: [h([1], false), h([0, 1, 2], false)] };
      expect(mergeHints(four('best-effort'), [cpu, gpu]).affinity).toEqual(h([0, 1], false));
    });

    it('with prefer-closest-numa-nodes takes the closer pair, not the lower one', () => {
      const distances = { 0: [10, 21, 11, 21], 1: [21, 10, 21, 11], 2: [11, 21, 10, 21], 3: [21, 11, 21, 10] };
      const cpu: ProviderHints = { cpu: [h([0, 1]), h([0, 2]), h([1, 3])] };
      expect(mergeHints(four('best-effort', { distances }), [cpu]).affinity).toEqual(h([0, 1]));
      const closest = four('best-effort', { distances, options: { 'prefer-closest-numa-nodes': 'true' } });
      expect(mergeHints(closest, [cpu]).affinity).toEqual(h([0, 2]));
      expect(mergeHints({ ...closest, policy: 'restricted' }, [cpu]).affinity).toEqual(h([0, 2]));
    });
  });
});
