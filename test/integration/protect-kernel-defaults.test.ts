/**
 * protectKernelDefaults on the real binary, standalone, on the embedded runtime. This host's
 * tunables are Go's values, so the kubelet starts; for the refusal the kubelet runs in a mount
 * namespace of its own (unshare -m, private propagation) where two /proc/sys files are bind-mounted
 * over with other values: the host's kernel and every other process are left alone. Needs root.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KERNEL_TUNABLES } from '../../src/domain/node/kernel-tunables.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';

let dir: string;
let kubelet: StaticPodKubelet | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-kernel-defaults-'));
});
afterAll(async () => {
  await kubelet?.dispose();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it('starts the container manager when every tunable holds what the kubelet expects', async () => {
  for (const t of KERNEL_TUNABLES) expect(Number(readFileSync(`/proc/sys/${t.flag}`, 'utf8')), t.flag).toBe(t.expected);
  kubelet = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: 'kts-kernel-defaults', config: ['protectKernelDefaults: true'] });
  const k = kubelet;
  const journal = () => readFileSync(join(k.root, 'events', 'latest.jsonl'), 'utf8');
  await until('the container manager started', () => journal().includes('"name":"xstate.done.actor.startContainerManager"'), 30_000, k.stderr);
  expect(k.child.exitCode).toBeNull();
  expect(await k.stop()).toBe(0);
}, 60_000);

it('refuses to start, naming each tunable that differs in Go\'s words, and exits 1', () => {
  writeFileSync(join(dir, 'overcommit'), '0\n');
  writeFileSync(join(dir, 'panic'), '-1\n');
  const config = join(dir, 'kubelet.yaml');
  writeFileSync(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nprotectKernelDefaults: true\nenableServer: false\n'
    + 'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}\nauthorization: {mode: AlwaysAllow}\n');
  const script = [
    `mount --bind ${join(dir, 'overcommit')} /proc/sys/vm/overcommit_memory`,
    `mount --bind ${join(dir, 'panic')} /proc/sys/kernel/panic`,
    'exec "$@"',
  ].join(' && ');
  const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', process.execPath, BIN,
    `--config=${config}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root', 'device-plugins')}`,
    '--debug-address=', '--healthz-port=0', '--container-runtime-endpoint=embedded',
  ], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr.slice(-3000)).toBe(1);
  expect(r.stderr).toContain('kubelet-ts: container manager failed to start: [invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/panic, expected value: 10, actual value: -1]\n');
  expect(r.stderr).toContain('"msg":"Failed to start ContainerManager"');
  // The mounts were the namespace's alone.
  expect(readFileSync('/proc/sys/vm/overcommit_memory', 'utf8').trim()).toBe('1');
}, 60_000);
