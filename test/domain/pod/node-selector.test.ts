import { describe, expect, it } from 'vitest';
import { matchesRequiredNodeAffinity, type SelectableNode } from '../../../src/domain/pod/node-selector.js';
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod } from '../../../src/domain/pod/types.js';

const node: SelectableNode = { name: 'node-a', labels: { zone: 'a', disk: 'ssd', cores: '8', empty: '' } };

const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', uid: 'u' }, spec: { containers: [], ...spec } });
const withTerms = (...terms: NodeSelectorTerm[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
const expr = (key: string, operator: string, values?: string[]): NodeSelectorRequirement => ({ key, operator: operator as NodeSelectorRequirement['operator'], ...(values ? { values } : {}) });
const matches = (p: Pod) => matchesRequiredNodeAffinity(p, node);

describe('matchesRequiredNodeAffinity', () => {
  it('matches a pod without nodeSelector or affinity', () => {
    expect(matches(pod({}))).toBe(true);
  });

  it('needs every nodeSelector key as a label with that value', () => {
    expect(matches(pod({ nodeSelector: { zone: 'a', disk: 'ssd' } }))).toBe(true);
    expect(matches(pod({ nodeSelector: { zone: 'a', disk: 'hdd' } }))).toBe(false);
    expect(matches(pod({ nodeSelector: { gpu: '' } }))).toBe(false);
    expect(matches(pod({ nodeSelector: { empty: '' } }))).toBe(true);
  });

  it.each([
    ['In', expr('zone', 'In', ['b', 'a']), true],
    ['In, value absent', expr('zone', 'In', ['b']), false],
    ['In, label absent', expr('gpu', 'In', ['x']), false],
    ['NotIn', expr('zone', 'NotIn', ['b']), true],
    ['NotIn, value present', expr('zone', 'NotIn', ['a']), false],
    ['NotIn, label absent', expr('gpu', 'NotIn', ['x']), true],
    ['Exists', expr('disk', 'Exists'), true],
    ['Exists, label absent', expr('gpu', 'Exists'), false],
    ['DoesNotExist', expr('gpu', 'DoesNotExist'), true],
    ['DoesNotExist, label present', expr('disk', 'DoesNotExist'), false],
    ['Gt', expr('cores', 'Gt', ['4']), true],
    ['Gt, equal', expr('cores', 'Gt', ['8']), false],
    ['Lt', expr('cores', 'Lt', ['16']), true],
    ['Gt on a value that is not a number', expr('zone', 'Gt', ['1']), false],
    ['Gt on an absent label', expr('gpu', 'Gt', ['1']), false],
  ])('matchExpressions %s', (_name, requirement, expected) => {
    expect(matches(withTerms({ matchExpressions: [requirement] }))).toBe(expected);
  });

  it.each([
    ['an unknown operator', expr('zone', 'Equals', ['a'])],
    ['In without values', expr('zone', 'In', [])],
    ['Exists with values', expr('zone', 'Exists', ['a'])],
    ['Gt with two values', expr('cores', 'Gt', ['1', '2'])],
    ['Gt with a value that is not an integer', expr('cores', 'Gt', ['1.5'])],
    ['an invalid key', expr('not a key', 'Exists')],
    ['an invalid value', expr('zone', 'NotIn', ['no spaces allowed'])],
  ])('makes a term with %s match nothing', (_name, requirement) => {
    expect(matches(withTerms({ matchExpressions: [requirement] }))).toBe(false);
    // Another term can still match.
    expect(matches(withTerms({ matchExpressions: [requirement] }, { matchExpressions: [expr('zone', 'In', ['a'])] }))).toBe(true);
  });

  it('ANDs the requirements of a term and ORs the terms', () => {
    expect(matches(withTerms({ matchExpressions: [expr('zone', 'In', ['a']), expr('disk', 'In', ['hdd'])] }))).toBe(false);
    expect(matches(withTerms({ matchExpressions: [expr('disk', 'In', ['hdd'])] }, { matchExpressions: [expr('zone', 'In', ['a'])] }))).toBe(true);
  });

  it('matches matchFields on metadata.name with In and NotIn', () => {
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'In', ['node-a'])] }))).toBe(true);
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'In', ['node-b'])] }))).toBe(false);
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'NotIn', ['node-b'])] }))).toBe(true);
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'In', ['node-a'])], matchExpressions: [expr('zone', 'In', ['b'])] }))).toBe(false);
  });

  it('refuses matchFields with another operator or not exactly one value', () => {
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'Exists')] }))).toBe(false);
    expect(matches(withTerms({ matchFields: [expr('metadata.name', 'In', ['node-a', 'node-b'])] }))).toBe(false);
  });

  it('matches no node with an empty term or no terms', () => {
    expect(matches(withTerms({}))).toBe(false);
    expect(matches(withTerms())).toBe(false);
  });

  it('needs both the nodeSelector and the required affinity', () => {
    const p = withTerms({ matchExpressions: [expr('zone', 'In', ['a'])] });
    expect(matchesRequiredNodeAffinity({ ...p, spec: { ...p.spec, nodeSelector: { disk: 'hdd' } } }, node)).toBe(false);
    expect(matchesRequiredNodeAffinity({ ...p, spec: { ...p.spec, nodeSelector: { disk: 'ssd' } } }, node)).toBe(true);
  });
});
