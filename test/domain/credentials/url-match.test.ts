import { describe, expect, it } from 'vitest';
import { globMatch, parseSchemelessUrl, urlsMatch } from '../../../src/domain/credentials/url-match.js';

describe('urlsMatch (Go URLsMatchStr)', () => {
  it.each<[string, string, boolean]>([
    // host: exact, glob per dot-separated part, same number of parts
    ['registry.example.com', 'registry.example.com/app', true],
    ['*.example.com', 'registry.example.com/app', true],
    ['*.example.com', 'example.com/app', false],
    ['*.example.com', 'a.b.example.com/app', false],
    ['*.*.example.com', 'a.b.example.com/app', true],
    // `?` starts the URL's query before globbing sees it, in Go as here
    ['reg?.example.com', 'reg1.example.com/app', false],
    ['reg[0-9].example.com', 'reg7.example.com/app', true],
    ['reg[^0-9].example.com', 'reg7.example.com/app', false],
    ['registry.example.com', 'other.example.com/app', false],
    // case is compared as written
    ['Registry.example.com', 'registry.example.com/app', false],
    // port: equal, or both absent
    ['127.0.0.1:5000', '127.0.0.1:5000/private', true],
    ['127.0.0.1', '127.0.0.1:5000/private', false],
    ['127.0.0.1:5000', '127.0.0.1/private', false],
    ['127.0.0.1:5001', '127.0.0.1:5000/private', false],
    ['*.0.0.1:5000', '127.0.0.1:5000/private', true],
    // path: the key's path is a string prefix of the image's
    ['registry.example.com/team', 'registry.example.com/team/app', true],
    ['registry.example.com/team', 'registry.example.com/teamwork/app', true],
    ['registry.example.com/team/', 'registry.example.com/teamwork/app', false],
    ['registry.example.com/team', 'registry.example.com/other/app', false],
    // a malformed glob matches nothing
    ['reg[.example.com', 'reg[.example.com/app', false],
  ])('%s against %s: %s', (glob, target, want) => {
    expect(urlsMatch(glob, target)).toBe(want);
  });
});

describe('globMatch (Go filepath.Match on one host part)', () => {
  it.each<[string, string, boolean | 'error']>([
    ['*', 'anything', true],
    ['a*c', 'abbbc', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['[a-c]x', 'bx', true],
    ['[!a]', '!', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['[', 'x', 'error'],
    ['[]', 'x', 'error'],
    ['a\\', 'a', 'error'],
  ])('%s ~ %s: %s', (pattern, name, want) => {
    const got = globMatch(pattern, name);
    expect(got instanceof Error ? 'error' : got).toBe(want);
  });
});

describe('parseSchemelessUrl', () => {
  it('splits host and path, dropping a query and fragment', () => {
    expect(parseSchemelessUrl('reg.io:5000/a/b?x=1#f')).toEqual({ host: 'reg.io:5000', path: '/a/b' });
    expect(parseSchemelessUrl('reg.io')).toEqual({ host: 'reg.io', path: '' });
  });

  it.each([
    ['reg.io:abc', 'invalid port ":abc" after host'],
    ['reg io', 'invalid character " " in host name'],
    ['reg.io\n', 'invalid control character'],
  ])('refuses %j with Go\'s message', (value, message) => {
    const got = parseSchemelessUrl(value);
    expect(got).toBeInstanceOf(Error);
    expect((got as Error).message).toContain(message);
    expect((got as Error).message).toContain(`parse "https://`);
  });
});
