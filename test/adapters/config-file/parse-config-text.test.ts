import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/adapters/config-file/parse-config-text.js';
import { KubeletError } from '../../../src/domain/errors.js';

function parseError(text: string): KubeletError {
  try {
    parseConfigText(text, 'k.yaml');
  } catch (err) {
    if (err instanceof KubeletError) return err;
    throw err;
  }
  throw new Error('expected a parse error');
}

describe('parseConfigText', () => {
  it('reads YAML and JSON into plain data', () => {
    expect(parseConfigText('a: 1\nb:\n  c: [x, y]\n', 'k.yaml')).toEqual({ value: { a: 1, b: { c: ['x', 'y'] } }, strictErrors: [] });
    expect(parseConfigText('{"a": 1, "b": {"c": "d"}}', 'k.json')).toEqual({ value: { a: 1, b: { c: 'd' } }, strictErrors: [] });
  });

  it('keeps a duplicated YAML key\'s last value and names the key and its line as Go\'s strict decoding does', () => {
    expect(parseConfigText('a: 1\nb: 2\na: 3\n', 'k.yaml')).toEqual({ value: { a: 3, b: 2 }, strictErrors: ['line 3: key "a" already set in map'] });
  });

  it('keeps a duplicated JSON key\'s last value, also nested', () => {
    expect(parseConfigText('{"x": {"enabled": true, "enabled": false}}', 'k.json')).toEqual({
      value: { x: { enabled: false } },
      strictErrors: ['line 1: key "enabled" already set in map'],
    });
  });

  it('rejects syntax errors and multi-document files', () => {
    expect(parseError('a: [1\n').code).toBe('KLT_ERR_CONFIG_PARSE');
    expect(parseError('a: 1\n---\nb: 2\n').message).toContain('2 YAML documents');
  });

  it('reads yes/no as strings (YAML 1.2), unlike Go\'s YAML 1.1', () => {
    expect(parseConfigText('failSwapOn: no\n', 'k.yaml').value).toEqual({ failSwapOn: 'no' });
  });

  it('names the file for an unresolved alias or an alias bomb, instead of throwing a ReferenceError (#14)', () => {
    expect(parseError('clusterDomain: *nope\n')).toMatchObject({ code: 'KLT_ERR_CONFIG_PARSE', message: expect.stringMatching(/^failed to load kubelet config file k\.yaml: Unresolved alias/) });
    const bomb = 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n';
    expect(parseError(bomb)).toMatchObject({ code: 'KLT_ERR_CONFIG_PARSE', message: expect.stringContaining('k.yaml: Excessive alias count') });
  });
});
