import { describe, expect, it } from 'vitest';
import { buildKeyring, lookupCredentials, repositoryToPull, type DockerConfig } from '../../../src/domain/credentials/keyring.js';
import { dockerConfigOf } from '../../../src/domain/credentials/pull-secrets.js';

const entry = (username: string) => ({ username, password: `${username}-pw` });
const sources = (keyring: ReturnType<typeof buildKeyring>, image: string) => lookupCredentials(keyring, image).map((c) => `${c.source}:${c.username}`);

describe('buildKeyring + lookupCredentials (Go BasicDockerKeyring)', () => {
  const keyring = buildKeyring([
    { source: 'a', config: { 'https://reg.io': entry('host'), 'reg.io/team': entry('team'), 'http://reg.io/v2/team/app': entry('app') } },
    { source: 'b', config: { '*.corp.io': entry('wild'), 'reg.io': entry('host2'), 'https://index.docker.io/v1/': entry('hub') } },
    { source: 'c', config: { 'bad host:x': entry('never') } },
  ]);

  it.each<[string, string[]]>([
    // most specific key first; every matching key's credentials, in the order they were added
    ['reg.io/team/app', ['a:app', 'a:team', 'a:host', 'b:host2']],
    ['reg.io/team/other', ['a:team', 'a:host', 'b:host2']],
    ['reg.io/solo', ['a:host', 'b:host2']],
    ['eu.corp.io/x', ['b:wild']],
    ['corp.io/x', []],
    ['reg.io:5000/x', []],
    // Docker Hub: the index.docker.io entry when no key matches
    ['docker.io/library/busybox', ['b:hub']],
    ['other.io/x', []],
  ])('%s → %j', (image, want) => {
    expect(sources(keyring, image)).toEqual(want);
  });

  it('keys drop the scheme and a /v1/ or /v2/ prefix; unparsable registries are left out', () => {
    expect(keyring.index).toEqual(['reg.io/team/app', 'reg.io/team', 'reg.io', 'index.docker.io', '*.corp.io']);
  });
});

describe('repositoryToPull (ParseNormalizedNamed().Name())', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox'],
    ['busybox:1.36', 'docker.io/library/busybox'],
    ['team/app:1', 'docker.io/team/app'],
    ['index.docker.io/busybox', 'docker.io/library/busybox'],
    ['localhost/app', 'localhost/app'],
    ['127.0.0.1:5000/private:latest', '127.0.0.1:5000/private'],
    ['reg.io/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'reg.io/a/b'],
  ])('%s → %s', (image, repo) => {
    expect(repositoryToPull(image)).toBe(repo);
  });
});

describe('dockerConfigOf (image pull secrets)', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = (type: string, key: string, value: unknown) => ({ ref: 'ns/s', type, data: { [key]: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)) } });

  it('reads .dockerconfigjson auths and .dockercfg maps, `auth` winning over username/password', () => {
    expect(dockerConfigOf(secret('kubernetes.io/dockerconfigjson', '.dockerconfigjson', { auths: { 'reg.io': { auth: b64('u:p:with:colons'), username: 'x', password: 'y' } } })))
      .toEqual<DockerConfig>({ 'reg.io': { username: 'u', password: 'p:with:colons' } });
    expect(dockerConfigOf(secret('kubernetes.io/dockercfg', '.dockercfg', { 'reg.io': { username: 'u', password: 'p', email: 'e@x' } })))
      .toEqual<DockerConfig>({ 'reg.io': { username: 'u', password: 'p', email: 'e@x' } });
  });

  it('ignores other types, a key of the other type, and empty data', () => {
    expect(dockerConfigOf(secret('Opaque', '.dockerconfigjson', { auths: {} }))).toBeUndefined();
    expect(dockerConfigOf(secret('kubernetes.io/dockercfg', '.dockerconfigjson', { auths: {} }))).toBeUndefined();
    expect(dockerConfigOf(secret('kubernetes.io/dockerconfigjson', '.dockerconfigjson', ''))).toBeUndefined();
  });

  it.each([
    ['not JSON', '{'],
    ['auth without a colon', JSON.stringify({ auths: { 'reg.io': { auth: b64('nocolon') } } })],
    ['auth not base64', JSON.stringify({ auths: { 'reg.io': { auth: '***' } } })],
    ['a non-string username', JSON.stringify({ auths: { 'reg.io': { username: 7 } } })],
  ])('fails on %s, naming the secret and never its content', (_, text) => {
    const got = dockerConfigOf(secret('kubernetes.io/dockerconfigjson', '.dockerconfigjson', text));
    expect(got).toBeInstanceOf(Error);
    expect((got as Error).message).toContain('ns/s');
    expect((got as Error).message).not.toContain('nocolon');
  });
});
