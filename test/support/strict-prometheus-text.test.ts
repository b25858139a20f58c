import { describe, expect, it } from 'vitest';
import { parseStrictExposition, strictFamilies } from './strict-prometheus-text.js';

const GOOD = [
  '# HELP a_total [ALPHA] Things\\\\ and\\nmore.',
  '# TYPE a_total counter',
  'a_total{x="q\\"\\\\\\n",y=""} 1.5 1700000000000',
  'a_total{x="b"} 2',
  '# a plain comment',
  '# TYPE h histogram',
  'h_bucket{le="1"} 1',
  'h_bucket{le="+Inf"} 2',
  'h_sum 3e-3',
  'h_count 2',
  '# TYPE g gauge',
  'g -Inf',
  '',
].join('\n');

describe('parseStrictExposition', () => {
  it('reads families, help, labels with escapes, values and timestamps', () => {
    const f = strictFamilies(GOOD);
    expect([...f.keys()]).toEqual(['a_total', 'h', 'g']);
    expect(f.get('a_total')?.help).toBe('[ALPHA] Things\\ and\nmore.');
    expect(f.get('a_total')?.samples[0]).toEqual({ name: 'a_total', labels: { x: 'q"\\\n', y: '' }, value: 1.5, timestampMs: 1_700_000_000_000 });
    expect(f.get('h')?.samples.map((s) => s.name)).toEqual(['h_bucket', 'h_bucket', 'h_sum', 'h_count']);
    expect(f.get('g')?.samples[0]?.value).toBe(-Infinity);
  });

  it.each([
    ['a sample before its TYPE', 'x 1\n# TYPE x gauge\n', /before its family's TYPE/],
    ['a sample without any TYPE', '# HELP x X\nx 1\n', /before its family's TYPE/],
    ['a duplicate series', '# TYPE x gauge\nx{a="1",b="2"} 1\nx{b="2",a="1"} 2\n', /duplicate series/],
    ['a duplicate unlabelled series', '# TYPE x gauge\nx 1\nx 2\n', /duplicate series/],
    ['a second TYPE', '# TYPE x gauge\n# TYPE x gauge\nx 1\n', /second TYPE/],
    ['a second HELP', '# HELP x a\n# HELP x b\n# TYPE x gauge\nx 1\n', /second HELP/],
    ['a HELP after the samples', '# TYPE x gauge\nx 1\n# HELP x late\n', /after its samples/],
    ['a family split by another', '# TYPE x gauge\n# TYPE y gauge\nx{a="1"} 1\ny 1\nx{a="2"} 2\n', /continues after another family/],
    ['a bad label escape', '# TYPE x gauge\nx{a="\\t"} 1\n', /bad escape/],
    ['a raw quote in a label value', '# TYPE x gauge\nx{a="q"q"} 1\n', /expected , or }/],
    ['an unclosed label value', '# TYPE x gauge\nx{a="q} 1\n', /not closed/],
    ['an unquoted label value', '# TYPE x gauge\nx{a=1} 1\n', /not quoted/],
    ['a label given twice', '# TYPE x gauge\nx{a="1",a="2"} 1\n', /given twice/],
    ['a reserved label name', '# TYPE x gauge\nx{__name__="x"} 1\n', /reserved label/],
    ['a bad label name', '# TYPE x gauge\nx{1a="1"} 1\n', /bad label name/],
    ['a bad HELP escape', '# HELP x a\\tb\n# TYPE x gauge\nx 1\n', /bad escape .* in HELP/],
    ['a hex value', '# TYPE x gauge\nx 0x10\n', /not a float/],
    ['Infinity spelt as JavaScript does', '# TYPE x gauge\nx Infinity\n', /not a float/],
    ['a fractional timestamp', '# TYPE x gauge\nx 1 1.5\n', /not a timestamp/],
    ['two spaces', '# TYPE x gauge\nx  1\n', /not a float: ""/],
    ['a trailing field', '# TYPE x gauge\nx 1 2 3\n', /expected one space/],
    ['a malformed TYPE', '# TYPE x gaug\nx 1\n', /malformed TYPE/],
    ['a malformed comment', '#TYPE x gauge\n', /malformed comment/],
    ['a blank line', '# TYPE x gauge\n\nx 1\n', /blank line/],
    ['a missing final newline', '# TYPE x gauge\nx 1', /newline/],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\n', /without le/],
    ['garbage', '# TYPE x gauge\n{a="1"} 1\n', /not a sample/],
  ])('rejects %s', (_what, text, reason) => {
    expect(() => parseStrictExposition(text)).toThrow(reason);
  });

  it('names the offending line', () => {
    expect(() => parseStrictExposition('# TYPE x gauge\nx 1\nx 1\n')).toThrow(/^line 3: duplicate series x/);
  });
});
