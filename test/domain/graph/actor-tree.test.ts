import { describe, expect, it } from 'vitest';
import { fromPromise, setup } from 'xstate';
import { actorTreeMermaid, readActorTree, treeMachines } from '../../../src/domain/graph/actor-tree.js';
import { subsystemSlot } from '../../../src/machines/subsystem-slot.js';

const notProvided = fromPromise<void>(async () => {
  throw new Error('not provided');
});
// A child machine's slot, declared as the machines declare theirs.
const slot = subsystemSlot<unknown>();

const leaf = setup({ actors: { work: notProvided, unused: notProvided } }).createMachine({
  id: 'leaf', initial: 'working', states: { working: { invoke: { src: 'work' } } },
});
const parent = setup({ actors: { helper: slot, many: slot, fetch: notProvided } }).createMachine({
  id: 'parent', invoke: { id: 'theHelper', src: 'helper' },
});
const registry = { parent, leaf };

const composed = parent.provide({
  actors: {
    helper: leaf.provide({ actors: { work: fromPromise(async () => {}) } }),
    many: leaf.provide({ actors: { work: fromPromise(async () => {}) } }),
    fetch: fromPromise(async () => {}),
  },
});

describe('readActorTree', () => {
  it('names children by the registry, tells invoked from spawned, and lists only the effects provided', () => {
    const tree = readActorTree(composed, { registry, spawnIds: { parent: { many: 'leaf:{n}' } } });
    expect(tree.machine).toBe('parent');
    expect(tree.effects).toEqual(['fetch']);
    expect(tree.children.map((c) => [c.src, c.how, c.id, c.node.machine])).toEqual([
      ['helper', 'invoke', 'theHelper', 'leaf'],
      ['many', 'spawn', 'leaf:{n}', 'leaf'],
    ]);
    // `unused` is declared by the leaf but nobody provides it.
    expect(tree.children[0]!.node.effects).toEqual(['work']);
    expect(treeMachines(tree)).toEqual(['parent', 'leaf', 'leaf']);
  });

  it('gives a spawned child no id when the caller names none', () => {
    const tree = readActorTree(composed, { registry });
    expect(tree.children.find((c) => c.src === 'many')?.id).toBeNull();
  });

  it('refuses a child machine the registry does not have', () => {
    expect(() => readActorTree(composed, { registry: { parent } })).toThrow(/not in the machine registry/);
  });
});

describe('actorTreeMermaid', () => {
  it('draws one box per machine with its effects and one labelled edge per child, effects grouped when asked', () => {
    const tree = readActorTree(composed, { registry, spawnIds: { parent: { many: 'leaf:{n}' } } });
    expect(actorTreeMermaid(tree, { effectGroups: [{ label: 'fetchers', srcs: ['fetch'] }], comment: 'made here' })).toBe([
      'flowchart LR',
      '  %% made here',
      '  parent["<b>parent</b><br/>effects: 1 fetchers"]',
      '  parent -->|"invoke theHelper"| leaf["<b>leaf</b><br/>effects: work"]',
      '  parent -->|"spawn leaf:{n}"| leaf["<b>leaf</b><br/>effects: work"]',
      '',
    ].join('\n'));
  });
});
