import { describe, expect, it } from 'vitest';
import { checkedPayloadPath, cleanPayloadPath, payloadPathError } from '../../../src/domain/volumes/payload-path.js';
import { KubeletError } from '../../../src/domain/errors.js';

describe('payloadPathError', () => {
  it.each([
    ['', 'invalid path: must not be empty: ""'],
    ['/etc/passwd', 'invalid path: must be relative path: /etc/passwd'],
    ['a/../b', "invalid path: must not contain '..': a/../b"],
    ['..', "invalid path: must not contain '..': .."],
    ['..data', "invalid path: must not start with '..': ..data"],
    ['..a/b', "invalid path: must not start with '..': ..a/b"],
    [`${'x'.repeat(256)}`, 'invalid path: filenames must be less than or equal to 255 characters'],
    [`${'abcdefgh/'.repeat(456)}a`, 'invalid path: must be less than or equal to 4096 characters'],
  ])('refuses %j with Go\'s message', (path, message) => {
    expect(payloadPathError(path)).toBe(message);
  });

  it.each(['a', 'a/b/c', 'a..b', '.hidden', 'a/..b', 'a/./b', `${'x'.repeat(255)}`])('accepts %j', (path) => {
    expect(payloadPathError(path)).toBeUndefined();
  });
});

describe('cleanPayloadPath', () => {
  it.each([['a//b', 'a/b'], ['./a', 'a'], ['a/', 'a'], ['a/./b/', 'a/b'], ['.', '.']])('cleans %j to %j as filepath.Clean does', (raw, clean) => {
    expect(cleanPayloadPath(raw)).toBe(clean);
  });
});

describe('checkedPayloadPath', () => {
  it('returns the cleaned path of a valid one', () => {
    expect(checkedPayloadPath('conf//app.yaml')).toBe('conf/app.yaml');
  });

  it('takes a plain key as it is, and refuses the plain names the writer owns or that are too long, with the slow path\'s words', () => {
    for (const key of ['app.yaml', '.hidden', 'a..b', '-_.', 'x'.repeat(255)]) expect(checkedPayloadPath(key)).toBe(key);
    expect(() => checkedPayloadPath('..data')).toThrow("invalid path: must not start with '..': ..data");
    expect(() => checkedPayloadPath('..')).toThrow("invalid path: must not contain '..': ..");
    expect(() => checkedPayloadPath('x'.repeat(256))).toThrow('invalid path: filenames must be less than or equal to 255 characters');
  });

  it('refuses a path that only cleans to a reserved name (./..data) or to nothing', () => {
    for (const path of ['./..data', './', '.']) {
      expect(() => checkedPayloadPath(path)).toThrow(KubeletError);
      try { checkedPayloadPath(path); } catch (err) { expect((err as KubeletError).code).toBe('KLT_ERR_POD_SPEC_INVALID'); }
    }
  });
});
