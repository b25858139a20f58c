/**
 * The CPU manager at start-up, on the real binary (standalone, the embedded runtime): the state file
 * it writes with the none policy is Go's, a state file of another policy stops the start naming the
 * file to delete (Go's message), and the static policy without a CPU reservation is refused as Go
 * refuses it. Needs `npm run build`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCpuState } from '../../src/domain/resource-managers/cpu-state-file.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-cpu-start-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command line for a kubelet with its root dir `root` under the test's directory and these config lines. */
function args(root: string, config: string): string[] {
  const file = join(dir, `${root}.yaml`);
  writeFileSync(file, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nauthentication: {webhook: {enabled: false}, anonymous: {enabled: true}}\nauthorization: {mode: AlwaysAllow}\n${config}`);
  return [BIN, '--debug-address=', '--healthz-port=0', '--container-runtime-endpoint=embedded', `--config=${file}`, `--root-dir=${join(dir, root)}`, `--device-plugins-dir=${join(dir, root, 'device-plugins')}`];
}

/** The binary until it exits (a start-up that fails); a hang shows as a null status. */
const run = (root: string, config: string) => spawnSync(process.execPath, args(root, config), { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGTERM' });

/** The binary left running (the caller stops it). */
const start = (root: string, config: string) => spawn(process.execPath, args(root, config), { stdio: 'ignore' });

describe('the CPU manager at start-up', () => {
  it("refuses a state file written by another policy, with Go's message naming the file", () => {
    mkdirSync(join(dir, 'changed'), { recursive: true });
    const path = join(dir, 'changed', 'cpu_manager_state');
    writeFileSync(path, encodeCpuState({ policyName: 'static', defaultCpuSet: [0], entries: { uid: { main: [1] } } }));
    const r = run('changed', 'enableServer: false\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('start-up failed in phase startKubelet.resourceManagers');
    expect(r.stderr).toContain(`start cpu manager error: could not restore state from checkpoint: configured policy \\"none\\" differs from state checkpoint policy \\"static\\", please drain this node and delete the CPU manager checkpoint file \\"${path}\\" before restarting Kubelet`);
  });

  it('refuses the static policy without a CPU reservation', () => {
    const r = run('unreserved', 'enableServer: false\ncpuManagerPolicy: static\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero');
  });

  it('writes the none policy’s state file as Go does once it has started', async () => {
    const file = join(dir, 'none', 'cpu_manager_state');
    const kubelet = start('none', 'enableServer: false\n');
    try {
      await expect.poll(() => existsSync(file), { timeout: 20_000 }).toBe(true);
    } finally {
      kubelet.kill('SIGTERM');
    }
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ policyName: 'none', defaultCpuSet: '', checksum: expect.any(Number) });
  }, 30_000);
});

describe('the CPU reconcile period', () => {
  it('is refused when negative (Go would loop without pause)', () => {
    const r = run('negative', 'enableServer: false\ncpuManagerPolicy: static\nreservedSystemCPUs: "0"\ncpuManagerReconcilePeriod: -1s\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cpuManagerReconcilePeriod (--cpu-manager-reconcile-period) must be positive, got -1s');
  });
});
