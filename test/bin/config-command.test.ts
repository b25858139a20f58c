import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runConfigCommand } from '../../src/bin/commands/config.js';

const fixtures = fileURLToPath(new URL('../fixtures/config/', import.meta.url));

async function run(argv: string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: (s: string) => (stdout += s),
    stderr: (s: string) => (stderr += s),
    ...(Object.keys(files).length > 0
      ? {
          readFile: async (path: string) => {
            const text = files[path];
            if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
            return text;
          },
          listFiles: async (dir: string) => Object.keys(files).filter((p) => p.startsWith(`${dir}/`)).sort(),
        }
      : {}),
  };
  const code = await runConfigCommand(argv, io);
  return { code, stdout, stderr, json: code === 0 && stdout.startsWith('{') ? JSON.parse(stdout) : undefined };
}

const head = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

describe('kubelet-ts config', () => {
  it('prints the flag-only defaults as 2-space JSON with apiVersion and kind, exit 0', async () => {
    const { code, stdout, stderr, json } = await run([]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^\{\n {2}"apiVersion": "kubelet.config.k8s.io\/v1beta1",\n {2}"kind": "KubeletConfiguration",\n/);
    expect(json).toMatchObject({ readOnlyPort: 10255, authorization: { mode: 'AlwaysAllow' }, maxPods: 110, syncFrequency: '1m0s' });
  });

  it('prints a file\'s values over the v1beta1 defaults, with flags on top', async () => {
    const { code, json } = await run(['--config', '/k.yaml', '--sync-frequency=2m', '--node-status-update-frequency', '30s'], {
      '/k.yaml': `${head}maxPods: 50\nsyncFrequency: 30s\n`,
    });
    expect(code).toBe(0);
    expect(json).toMatchObject({ maxPods: 50, syncFrequency: '2m0s', nodeStatusUpdateFrequency: '30s', nodeStatusReportFrequency: '5m0s', readOnlyPort: 0 });
  });

  it('merges drop-ins from --config-dir', async () => {
    const { json } = await run(['--config=/k.yaml', '--config-dir=/d'], {
      '/k.yaml': `${head}maxPods: 50\n`,
      '/d/10-a.conf': `${head}maxPods: 60\n`,
      '/d/20-b.conf': `${head}eventBurst: 7\n`,
    });
    expect(json).toMatchObject({ maxPods: 60, eventBurst: 7 });
  });

  it('accepts underscores and --flag value with the real fixtures', async () => {
    const { code, json } = await run(['--config', join(fixtures, 'kubelet.json'), '--max_pods', '9']);
    expect(code).toBe(0);
    expect(json.maxPods).toBe(9);
  });

  it('prints every validation error on stderr, each naming its field, exit 1', async () => {
    const { code, stdout, stderr } = await run(['--config', join(fixtures, 'several-errors.yaml')]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const field of ['maxPods', 'oomScoreAdj', 'hairpinMode', 'imageGCLowThresholdPercent', 'runOnce']) {
      expect(lines.some((l) => l.includes(field))).toBe(true);
    }
  });

  it('warns of a duplicated key and an unknown field on stderr and prints the lenient decoding, exit 0', async () => {
    const { code, stderr, json } = await run(['--config', '/k.yaml'], { '/k.yaml': `${head}maxPods: 50\ncolour: red\nmaxPods: 60\n` });
    expect(code).toBe(0);
    expect(stderr.trim().split('\n')).toEqual([
      'warning: Using lenient decoding as strict decoding failed: /k.yaml: strict decoding error: line 5: key "maxPods" already set in map',
      'warning: Using lenient decoding as strict decoding failed: /k.yaml: strict decoding error: unknown field "colour"',
    ]);
    expect(json.maxPods).toBe(60);
    expect(json).not.toHaveProperty('colour');
  });

  it('still fails on a wrong type, exit 1', async () => {
    const { code, stderr } = await run(['--config', '/k.yaml'], { '/k.yaml': `${head}maxPods: ten\n` });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot unmarshal string "ten" into field "maxPods" of type int32');
  });

  it.each([
    [['--bogus'], 'unknown flag: --bogus'],
    [['extra'], 'unknown command "extra" for "kubelet"'],
    [['--max-pods=many'], 'invalid argument "many" for "--max-pods" flag'],
    [['--config', '/missing.yaml'], '/missing.yaml'],
  ])('fails with exit 1 and names the problem for %j', async (argv, message) => {
    const { code, stdout, stderr } = await run(argv);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  it('prints usage for --help and the version for --version, exit 0', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--container-runtime-endpoint string');
    const version = await run(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: 'Kubernetes v1.35.0-kubelet-ts\n' });
  });

  it('writes deprecation notices to stderr but still succeeds', async () => {
    const { code, stderr, json } = await run(['--max-pods=7']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^Flag --max-pods has been deprecated/);
    expect(json.maxPods).toBe(7);
  });
});
