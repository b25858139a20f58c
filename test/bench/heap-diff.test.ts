import { describe, expect, it } from 'vitest';
import { heapByKind } from '../../bench/heap-diff.js';

describe('heapByKind', () => {
  it('counts a snapshot\'s objects by constructor name, strings and code together, with their own bytes', () => {
    const fields = ['type', 'name', 'id', 'self_size', 'edge_count'];
    const types = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native', 'synthetic', 'concatenated string', 'sliced string'];
    const strings = ['', 'Actor', 'hello', 'world', 'Mailbox'];
    const node = (type: string, name: number, size: number) => [types.indexOf(type), name, 0, size, 0];
    const snapshot = {
      snapshot: { meta: { node_fields: fields, node_types: [types] as [string[]] } },
      nodes: [...node('object', 1, 40), ...node('object', 1, 40), ...node('object', 4, 24), ...node('string', 2, 16), ...node('concatenated string', 3, 32), ...node('code', 0, 100)],
      strings,
    };
    const { kinds, totalBytes } = heapByKind(snapshot);
    expect(Object.fromEntries(kinds)).toEqual({ 'object:Actor': [2, 80], 'object:Mailbox': [1, 24], '(string)': [2, 48], '(code)': [1, 100] });
    expect(totalBytes).toBe(252);
  });
});
