/**
 * The credential provider plugins over real files and a real plugin (a shell script): the config
 * loaded and refused as Go does, the request on stdin, the provider's args and env, the answer
 * cached by its cacheKeyType.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCredentialProviders } from '../../../src/adapters/credential-provider/load-providers.js';
import type { KubeletError } from '../../../src/domain/errors.js';

let dir: string;
let now = 0;
const deps = () => ({ clock: { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined }, logger: pino({ level: 'silent' }) });
const V1 = 'credentialprovider.kubelet.k8s.io/v1';

/** A plugin that appends its stdin and args to calls.log and answers with $PLUGIN_PASSWORD. */
function writePlugin(name: string, response = `{"apiVersion":"${V1}","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheDuration":"1m","auth":{"reg.io":{"username":"robot","password":"'"$PLUGIN_PASSWORD"'"}}}`): void {
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const script = join(dir, 'bin', name);
  writeFileSync(script, `#!/bin/sh\nprintf '%s %s\\n' "$(cat)" "$*" >> ${join(dir, 'calls.log')}\necho '${response}'\n`);
  chmodSync(script, 0o755);
}
const config = (providers: unknown[]) => JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', providers });
const provider = (name: string, over: Record<string, unknown> = {}) => ({ name, matchImages: ['reg.io', '*.reg.io'], defaultCacheDuration: '0s', apiVersion: V1, args: ['get-credentials'], env: [{ name: 'PLUGIN_PASSWORD', value: 's3cret' }], ...over });
const calls = () => { try { return readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n'); } catch { return []; } };
const failure = (p: Promise<unknown>) => p.then(() => undefined, (err: KubeletError) => `${err.code}: ${err.message}`);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-credprov-'));
  now = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('credential provider plugins', () => {
  it('runs the plugin with the request on stdin, its args and env, and caches by the answer\'s registry key', async () => {
    writePlugin('robot');
    writeFileSync(join(dir, 'config.yaml'), config([provider('robot')]));
    const providers = await loadCredentialProviders(join(dir, 'config.yaml'), join(dir, 'bin'), deps());
    expect(await providers.provide('reg.io/team/app')).toEqual([{ source: 'plugin robot', config: { 'reg.io': { username: 'robot', password: 's3cret' } } }]);
    expect(calls()).toEqual([`{"kind":"CredentialProviderRequest","apiVersion":"${V1}","image":"reg.io/team/app"} get-credentials`]);
    // Another image of the same registry within the minute: from the cache.
    await providers.provide('reg.io/other');
    expect(calls()).toHaveLength(1);
    now += 61_000;
    await providers.provide('reg.io/other');
    expect(calls()).toHaveLength(2);
    // An image its matchImages do not cover: the plugin is not run.
    expect(await providers.provide('elsewhere.io/app')).toEqual([]);
    expect(calls()).toHaveLength(2);
  });

  it('shares one run between concurrent asks for the same image', async () => {
    writePlugin('robot');
    writeFileSync(join(dir, 'config.json'), config([provider('robot')]));
    const providers = await loadCredentialProviders(join(dir, 'config.json'), join(dir, 'bin'), deps());
    await Promise.all([providers.provide('reg.io/app'), providers.provide('reg.io/app')]);
    expect(calls()).toHaveLength(1);
  });

  it('a plugin that fails or answers another apiVersion gives nothing, and the others still answer', async () => {
    writePlugin('robot');
    writePlugin('wrong', `{"apiVersion":"credentialprovider.kubelet.k8s.io/v1beta1","kind":"CredentialProviderResponse","cacheKeyType":"Image"}`);
    mkdirSync(join(dir, 'conf.d'));
    writeFileSync(join(dir, 'conf.d', '10-robot.yaml'), config([provider('robot')]));
    writeFileSync(join(dir, 'conf.d', '20-wrong.yml'), config([provider('wrong')]));
    writeFileSync(join(dir, 'conf.d', 'README'), 'not a config');
    const providers = await loadCredentialProviders(join(dir, 'conf.d'), join(dir, 'bin'), deps());
    expect((await providers.provide('reg.io/app')).map((a) => a.source)).toEqual(['plugin robot']);
  });

  it.each<[string, () => [string, string], RegExp]>([
    ['a missing bin dir', () => [join(dir, 'config.yaml'), join(dir, 'nope')], /plugin binary directory .*nope did not exist/],
    ['a missing plugin', () => (writeFileSync(join(dir, 'c.yaml'), config([provider('ghost')])), mkdirSync(join(dir, 'bin')), [join(dir, 'c.yaml'), join(dir, 'bin')]), /plugin binary executable .*ghost did not exist/],
    ['every invalid field', () => (writeFileSync(join(dir, 'c.yaml'), config([provider('a/b', { apiVersion: 'v9', matchImages: [] })])), mkdirSync(join(dir, 'bin')), [join(dir, 'c.yaml'), join(dir, 'bin')]),
      /failed to validate credential provider config: \[providers.name: "a\/b": provider name cannot contain '\/', providers.apiVersion: "v9": Unsupported value.*, providers.matchImages: \[\]: Required value/],
    ['a provider named twice across files', () => {
      mkdirSync(join(dir, 'd'));
      mkdirSync(join(dir, 'bin'));
      writeFileSync(join(dir, 'd', 'a.yaml'), config([provider('x')]));
      writeFileSync(join(dir, 'd', 'b.json'), config([provider('x')]));
      return [join(dir, 'd'), join(dir, 'bin')];
    }, /duplicate provider name "x"/],
    ['an empty config path', () => (mkdirSync(join(dir, 'bin')), ['', join(dir, 'bin')]), /credential provider config path is empty/],
  ])('refuses %s', async (_, arrange, message) => {
    const [configPath, binDir] = arrange();
    const got = await failure(loadCredentialProviders(configPath, binDir, deps()));
    expect(got).toMatch(/^KLT_ERR_CONFIG_INVALID: /);
    expect(got).toMatch(message);
  });

  it.each([
    ['a bad indent on an env value', `providers:\n- name: robot\n  env:\n  - name: PLUGIN_PASSWORD\n     value: s3cret-in-env\n`, /c\.yaml:4:11: .*\(BLOCK_AS_IMPLICIT_KEY\)/],
    ['a misspelt env', config([provider('robot', { envs: [{ name: 'PLUGIN_PASSWORD', value: 's3cret-in-env' }] })]), /providers\[0\]\.envs: unknown field/],
    ['an env entry that is not strings', config([provider('robot', { env: [{ name: 'PLUGIN_PASSWORD', value: ['s3cret-in-env'] }] })]), /providers\[0\]\.env\[0\]: must be \{name, value\} strings/],
  ])('refuses %s naming the place, never the env value', async (_, text, message) => {
    writePlugin('robot');
    writeFileSync(join(dir, 'c.yaml'), text);
    const got = await failure(loadCredentialProviders(join(dir, 'c.yaml'), join(dir, 'bin'), deps()));
    expect(got).toMatch(message);
    expect(got).not.toContain('s3cret');
  });
});
