/**
 * protectKernelDefaults on the real binary, standalone, on the embedded runtime. The kubelet runs in
 * a mount namespace of its own (unshare -m, private propagation) where the /proc/sys files it checks
 * are bind-mounted over: with Go's values it starts, with two others it refuses. The host's kernel
 * and every other process are left alone, and the host's own values play no part. Needs root.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';
import { startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { withTunables } from '../support/kernel-tunables-view.js';

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
  kubelet = await startStaticPodKubelet({
    endpoint: 'embedded', nodeName: 'kts-kernel-defaults', config: ['protectKernelDefaults: true'], wrap: withTunables(join(dir, 'go-values')),
  });
  const k = kubelet;
  const journal = () => readFileSync(join(k.root, 'events', 'latest.jsonl'), 'utf8');
  await until('the container manager started', () => journal().includes('"name":"xstate.done.actor.startContainerManager"'), 30_000, k.stderr);
  expect(k.child.exitCode).toBeNull();
  expect(await k.stop()).toBe(0);
}, 60_000);

it('refuses to start, naming each tunable that differs in Go\'s words, and exits 1', () => {
  const config = join(dir, 'kubelet.yaml');
  writeFileSync(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nprotectKernelDefaults: true\nenableServer: false\n'
    + 'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}\nauthorization: {mode: AlwaysAllow}\n');
  const hostPanic = readFileSync('/proc/sys/kernel/panic', 'utf8');
  const [unshare, ...args] = withTunables(join(dir, 'two-others'), { 'vm/overcommit_memory': 0, 'kernel/panic': -1 });
  const r = spawnSync(unshare, [...args, process.execPath, BIN,
    `--config=${config}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root', 'device-plugins')}`,
    '--debug-address=', '--healthz-port=0', '--container-runtime-endpoint=embedded',
  ], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr.slice(-3000)).toBe(1);
  expect(r.stderr).toContain('kubelet-ts: container manager failed to start: [invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/panic, expected value: 10, actual value: -1]\n');
  expect(r.stderr).toContain('"msg":"Failed to start ContainerManager"');
  // The mounts were the namespace's alone.
  expect(readFileSync('/proc/sys/kernel/panic', 'utf8')).toBe(hostPanic);
}, 60_000);
