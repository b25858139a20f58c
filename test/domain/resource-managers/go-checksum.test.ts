import { describe, expect, it } from 'vitest';
import { Fnv32a, fnv32a, goChecksum, goString, spewFormat, spewPointerToStruct, spewPointerToStructChecksum, type GoValue } from '../../../src/domain/resource-managers/go-checksum.js';

/** FNV-1a 32 over TextEncoder's bytes: the reference the piecewise hash must equal. */
function reference(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

describe('go-checksum', () => {
  it.each([
    ['ascii', 'policyName:static'],
    ['two-byte characters', 'café ñ'],
    ['three-byte characters', '日本語'],
    ['a surrogate pair', 'gpu 🚀 x'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate at the end', 'a\udc00'],
  ])('hashes %s as the UTF-8 bytes TextEncoder writes', (_what, text) => {
    expect(fnv32a(text)).toBe(reference(text));
    const pieces = new Fnv32a();
    // Pieces are whole strings (names, keys, values): a surrogate pair is never split between two.
    for (const ch of text) pieces.add(ch);
    expect(pieces.digest()).toBe(reference(text));
  });

  it('hashes a value as it prints it', () => {
    const v: GoValue = {
      kind: 'ptr', type: '*x.T', to: {
        kind: 'struct', type: 'x.T', fields: [
          ['Name', goString('string', 'n')],
          ['Ids', { kind: 'slice', type: '[]string', items: [goString('string', 'b'), goString('string', 'a')] }],
          ['M', { kind: 'map', type: 'map[int64]string', entries: [[{ kind: 'int', type: 'int64', value: 10 }, goString('string', 'x')], [{ kind: 'int', type: 'int64', value: 2 }, goString('string', 'y')]] }],
          ['Nil', { kind: 'slice', type: '[]string', items: null }],
        ],
      },
    };
    expect(spewFormat(v)).toBe('(*x.T){Name:(string)n Ids:([]string)[b a] M:(map[int64]string)map[2:y 10:x] Nil:([]string)<nil>}');
    expect(goChecksum(v)).toBe(reference(spewFormat(v)));
  });

  it('prints a pointer to a struct of simple values with sorted map keys, and hashes the same text', () => {
    const fields = [
      { name: 'PolicyName', goType: 'string', value: 'static' },
      { name: 'Entries', goType: 'map[string]map[string]string', value: { u2: { b: '1', a: '0-3' }, u1: {} } },
      { name: 'Checksum', goType: 'checksum.Checksum', value: 0 },
    ];
    const text = spewPointerToStruct('state.C', fields);
    expect(text).toBe('(*state.C){PolicyName:(string)static Entries:(map[string]map[string]string)map[u1:map[] u2:map[a:0-3 b:1]] Checksum:(checksum.Checksum)0}');
    expect(spewPointerToStructChecksum('state.C', fields)).toBe(reference(text));
  });
});
