import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { parseStrictYaml } from '../../../src/adapters/bounded-input/strict-yaml.js';

const podWithLabels = (n: number): string => {
  let text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: many\n  labels:\n';
  for (let i = 0; i < n; i++) text += `    key-${i}: v\n`;
  return text;
};

const ALIAS_BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
].join('\n');

function timed(text: string): number {
  const start = performance.now();
  const result = parseStrictYaml(text);
  const elapsed = performance.now() - start;
  expect(result.ok).toBe(true);
  return elapsed;
}

describe('parseStrictYaml', () => {
  it('parses 40,000 labels in time linear in their number, not quadratic (#14)', () => {
    timed(podWithLabels(2_000)); // warm the JIT, so the comparison is of the parser, not of start-up
    const small = Math.min(timed(podWithLabels(10_000)), timed(podWithLabels(10_000)));
    const large = Math.min(timed(podWithLabels(40_000)), timed(podWithLabels(40_000)));
    // 4x the keys: linear is ~4x, the quadratic check it replaces was ~16x. 8x leaves room for noise.
    expect(large / small).toBeLessThan(8);
  }, 60_000);

  it('finds a duplicated key in a large mapping, with its line', () => {
    const text = podWithLabels(40_000) + '    key-7: again\n';
    const result = parseStrictYaml(text);
    expect(result).toEqual({ ok: false, problems: [expect.objectContaining({ code: 'DUPLICATE_KEY', key: 'key-7', line: 40_006 })] });
  });

  it('keeps a duplicated key\'s last value and lists the duplicate beside the documents when asked to read leniently', () => {
    const result = parseStrictYaml('a: 1\nb: {c: 2, c: 3}\na: 4\n', { duplicateKeys: 'lastWins' });
    expect(result).toEqual({
      ok: true,
      documents: [{ empty: false, value: { a: 4, b: { c: 3 } } }],
      duplicateKeys: [expect.objectContaining({ code: 'DUPLICATE_KEY', key: 'a', line: 3 }), expect.objectContaining({ code: 'DUPLICATE_KEY', key: 'c', line: 2 })],
    });
    expect(parseStrictYaml('a: [1\n', { duplicateKeys: 'lastWins' }).ok).toBe(false);
  });

  it('tells 1 and "1" apart as keys, as the yaml package does', () => {
    expect(parseStrictYaml('1: a\n"1": b\n').ok).toBe(true);
  });

  it('reports an unresolved alias as a problem instead of throwing (#14)', () => {
    const result = parseStrictYaml('a: *x\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatchObject({ code: 'ALIAS', message: expect.stringContaining('Unresolved alias') });
  });

  it('reports an alias bomb as a problem instead of expanding it (#14)', () => {
    const result = parseStrictYaml(ALIAS_BOMB);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatchObject({ code: 'ALIAS', message: expect.stringContaining('alias count') });
  });

  it('keeps ordinary aliases working', () => {
    expect(parseStrictYaml('a: &x [1, 2]\nb: *x\n')).toEqual({ ok: true, documents: [{ empty: false, value: { a: [1, 2], b: [1, 2] } }] });
  });
});
