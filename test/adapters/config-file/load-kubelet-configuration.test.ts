import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { loadKubeletConfiguration, MAX_CONFIG_BYTES, nodeConfigFileSystem } from '../../../src/adapters/config-file/load-kubelet-configuration.js';
import type { KubeletConfiguration } from '../../../src/domain/config/types.js';
import { KubeletError } from '../../../src/domain/errors.js';

const fixtures = fileURLToPath(new URL('../../fixtures/config/', import.meta.url));
const fixture = (name: string) => join(fixtures, name);

async function loadError(argv: string[]): Promise<KubeletError> {
  try {
    await loadKubeletConfiguration(argv);
  } catch (err) {
    if (err instanceof KubeletError) return err;
    throw err;
  }
  throw new Error('expected loadKubeletConfiguration to throw');
}

describe('loadKubeletConfiguration', () => {
  let tmp = '';
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'kubelet-ts-config-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('reads a YAML file: its values, the v1beta1 defaults for the rest, relative paths resolved', async () => {
    const { config, errors, gates } = await loadKubeletConfiguration(['--config', fixture('kubelet.yaml')]);
    expect(errors).toEqual([]);
    expect(config.maxPods).toBe(50);
    expect(config.syncFrequency).toBe('30s');
    expect(config.nodeStatusReportFrequency).toBe('20s');
    expect(config.staticPodPath).toBe(join(fixtures, 'manifests'));
    expect(config.readOnlyPort).toBe(0);
    expect(config.kubeReserved).toEqual({ cpu: '200m', memory: '512Mi' });
    expect(gates.CustomCPUCFSQuotaPeriod).toBe(true);
  });

  it('reads a JSON file', async () => {
    const { config, errors } = await loadKubeletConfiguration([`--config=${fixture('kubelet.json')}`]);
    expect(errors).toEqual([]);
    expect(config.maxPods).toBe(42);
    expect(config.evictionHard).toEqual({ 'memory.available': '200Mi' });
  });

  it('merges *.conf drop-ins in lexical walk order (subdirectories too), ignoring other files, then the flags', async () => {
    const { config, errors } = await loadKubeletConfiguration([
      '--config', fixture('kubelet.yaml'), '--config-dir', fixture('drop-ins'), '--registry-burst=44',
    ]);
    expect(errors).toEqual([]);
    expect(config.maxPods).toBe(70); // 20-more.conf last among the top-level files; 99-ignored.yaml skipped
    expect(config.kubeReserved).toEqual({ cpu: '200m', memory: '1Gi' });
    expect(config.registryBurst).toBe(44); // nested/30-deep.conf said 33, the flag wins
  });

  it('applies drop-ins over the flag-only defaults when there is no --config', async () => {
    const { config } = await loadKubeletConfiguration(['--config-dir', fixture('drop-ins')]);
    expect(config.maxPods).toBe(70);
    expect(config.readOnlyPort).toBe(10255);
  });

  it('lists drop-ins recursively and in lexical order', async () => {
    const dir = join(tmp, 'walk');
    await mkdir(join(dir, 'b'), { recursive: true });
    await Promise.all(['c.conf', 'a.conf', 'b/z.conf'].map((n) => writeFile(join(dir, n), '')));
    expect(await nodeConfigFileSystem.listFiles(dir)).toEqual([join(dir, 'a.conf'), join(dir, 'b', 'z.conf'), join(dir, 'c.conf')]);
  });

  it('returns every validation error of a file, each naming its field', async () => {
    const { errors } = await loadKubeletConfiguration(['--config', fixture('several-errors.yaml')]);
    expect(errors.map((e) => e.field).sort()).toEqual(['hairpinMode', 'imageGCLowThresholdPercent', 'maxPods', 'oomScoreAdj', 'runOnce']);
  });

  it('warns of unknown fields, naming the file and each field, and applies the rest (Go\'s lenient decoding)', async () => {
    const path = fixture('unknown-field.yaml');
    const { config, errors, warnings } = await loadKubeletConfiguration(['--config', path]);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([`${path}: strict decoding error: unknown field "maxPod"`, `${path}: strict decoding error: unknown field "authentication.anonymous.enable"`]);
    expect(config.maxPods).toBe(110);
    expect(config.authentication.anonymous.enabled).toBe(false);
  });

  it.each([
    ['duplicate-key.yaml', 'line 7: key "maxPods" already set in map', (c: KubeletConfiguration) => expect(c.maxPods).toBe(20)],
    ['duplicate-key.json', 'line 2: key "enabled" already set in map', (c: KubeletConfiguration) => expect(c.authentication.webhook.enabled).toBe(false)],
  ])('warns of a duplicated key in %s, naming the file, the key and its line, and takes its last value', async (name, strictError, lastValueWins) => {
    const { config, errors, warnings } = await loadKubeletConfiguration(['--config', fixture(name)]);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([`${fixture(name)}: strict decoding error: ${strictError}`]);
    lastValueWins(config);
  });

  it('warns of a drop-in\'s duplicated key and unknown field, naming the drop-in', async () => {
    const dir = join(tmp, 'lenient-drop-ins');
    await mkdir(dir);
    await writeFile(join(dir, '10-a.conf'), 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 12\ncolour: red\nmaxPods: 13\n');
    const { config, errors, warnings } = await loadKubeletConfiguration(['--config-dir', dir]);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      `${join(dir, '10-a.conf')}: strict decoding error: line 5: key "maxPods" already set in map`,
      `${join(dir, '10-a.conf')}: strict decoding error: unknown field "colour"`,
    ]);
    expect(config.maxPods).toBe(13);
  });

  it('still returns a wrong type, a wrong apiVersion and an invalid value as errors, beside the warnings', async () => {
    const path = join(tmp, 'wrong-type.yaml');
    await writeFile(path, 'apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\nmaxPods: ten\ncolour: red\nhealthzPort: 70000\n');
    const { errors, warnings } = await loadKubeletConfiguration(['--config', path]);
    expect(errors.map((e) => e.field)).toEqual(['apiVersion', 'maxPods', 'healthzPort']);
    expect(warnings).toEqual([`${path}: strict decoding error: unknown field "colour"`]);
  });

  it('fails with KLT_ERR_CONFIG_READ naming a missing file or drop-in directory', async () => {
    const missing = join(tmp, 'nope.yaml');
    const err = await loadError(['--config', missing]);
    expect(err.code).toBe('KLT_ERR_CONFIG_READ');
    expect(err.message).toContain(missing);
    expect((await loadError(['--config-dir', join(tmp, 'no-dir')])).code).toBe('KLT_ERR_CONFIG_READ');
  });

  it('fails with KLT_ERR_CONFIG_PARSE on an empty --config file but skips an empty drop-in', async () => {
    const empty = join(tmp, 'empty.yaml');
    await writeFile(empty, '\n');
    expect((await loadError(['--config', empty])).code).toBe('KLT_ERR_CONFIG_PARSE');
    const dir = join(tmp, 'empty-drop-ins');
    await mkdir(dir);
    await writeFile(join(dir, 'a.conf'), '');
    expect((await loadKubeletConfiguration(['--config-dir', dir])).errors).toEqual([]);
  });

  it('passes flag errors through as KubeletError', async () => {
    expect((await loadError(['--nope'])).code).toBe('KLT_ERR_FLAG_UNKNOWN');
  });

  it.each([
    ['a FIFO (which would block forever)', 'fifo', 'is a FIFO, not a regular file'],
    ['/dev/urandom (which would never end)', '/dev/urandom', 'is a character device, not a regular file'],
    ['a file over the 1 MiB limit', 'huge.yaml', `is ${MAX_CONFIG_BYTES + 1} bytes, over the ${MAX_CONFIG_BYTES} byte limit`],
  ])('refuses --config naming %s before reading it (#14)', async (_what, name, reason) => {
    const path = name.startsWith('/') ? name : join(tmp, name);
    if (name === 'fifo') execFileSync('mkfifo', [path]);
    if (name === 'huge.yaml') await writeFile(path, '#'.repeat(MAX_CONFIG_BYTES + 1));
    const err = await loadError(['--config', path]);
    expect(err.code).toBe('KLT_ERR_CONFIG_READ');
    expect(err.message).toBe(`failed to read kubelet config file ${JSON.stringify(path)}: ${reason}`);
  });
});
