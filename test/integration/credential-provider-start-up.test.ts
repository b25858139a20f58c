/**
 * The real binary with --image-credential-provider-config / --image-credential-provider-bin-dir at
 * start-up: a config with invalid fields, or a bin dir or plugin that is missing, ends in exit 1
 * naming the phase and every invalid field, as Go's kubelet exits when it cannot register the
 * plugins. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-credprov-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'ok'), '#!/bin/sh\nexit 1\n');
  chmodSync(join(dir, 'bin', 'ok'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(configBody: string, binDir = join(dir, 'bin')) {
  const config = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(config, configBody);
  return spawnSync(process.execPath, [BIN, '--debug-address=', '--healthz-port=0', '--container-runtime-endpoint=embedded', `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`,
    `--image-credential-provider-config=${config}`, `--image-credential-provider-bin-dir=${binDir}`], { encoding: 'utf8', timeout: 20_000 });
}

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\n';

describe('credential provider plugins at start-up', () => {
  it('exits 1 listing every invalid field of the CredentialProviderConfig', () => {
    const r = run(`${HEAD}providers:\n- name: a/b\n  matchImages: []\n  defaultCacheDuration: -1s\n  apiVersion: credentialprovider.kubelet.k8s.io/v9\n`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('start-up failed in phase runKubelet.newMainKubelet: KLT_ERR_CONFIG_INVALID: failed to validate credential provider config: [');
    for (const field of ["providers.name: \"a/b\": provider name cannot contain '/'", 'providers.apiVersion: "credentialprovider.kubelet.k8s.io/v9"', 'providers.matchImages: []: Required value', 'providers.defaultCacheDuration: -1000: defaultCacheDuration must be greater than or equal to 0']) {
      expect(r.stderr).toContain(field);
    }
  });

  it.each([
    ['a missing bin dir', `${HEAD}providers:\n- {name: ok, matchImages: [reg.io], defaultCacheDuration: 1m, apiVersion: credentialprovider.kubelet.k8s.io/v1}\n`, '/nonexistent-kts', 'plugin binary directory /nonexistent-kts did not exist'],
    ['a missing plugin', `${HEAD}providers:\n- {name: ghost, matchImages: [reg.io], defaultCacheDuration: 1m, apiVersion: credentialprovider.kubelet.k8s.io/v1}\n`, undefined, 'ghost did not exist'],
    ['an unknown field', `${HEAD}providers:\n- {name: ok, matchImages: [reg.io], defaultCacheDuration: 1m, apiVersion: credentialprovider.kubelet.k8s.io/v1, colour: red}\n`, undefined, 'providers[0].colour: unknown field'],
  ])('exits 1 for %s', (_, body, binDir, message) => {
    const r = run(body, binDir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(message);
  });
});
