/**
 * CSI driver registration on a standalone kubelet (the real binary, the embedded runtime, no API
 * server): the lab's CSI mock driver, already serving when the kubelet starts, is found by the
 * walk of plugins_registry at start and registered (the driver is told; its actor is `registered`
 * on /debug/actors), with no CSINode to write; its socket removed, the actor goes. The journal then
 * replays identically.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CSI_MOCK_DRIVER_NAME, type CsiMockDriver, csiMockDriverPart, startCsiMockDriver, toldRegistered } from '../support/csi-mock-driver.js';
import { freePort, removePods, until } from '../support/daemon.js';
import { KUBELET_BIN, runKubeletCommand } from '../support/kubelet-bin.js';
import { describeNeeding } from '../support/real-parts.js';
import { writeServerTestConfig } from '../support/server-test-config.js';

describeNeeding(csiMockDriverPart(), 'CSI driver registration, standalone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kts-csi-standalone-'));
  const root = join(dir, 'root');
  const actorId = `plugin:${encodeURIComponent(`${CSI_MOCK_DRIVER_NAME}-reg.sock`)}`;
  let kubelet: ChildProcess | undefined;
  let driver: CsiMockDriver | undefined;
  let stderr = '';
  let debugPort = 0;
  const actors = async () => ((await (await fetch(`http://127.0.0.1:${debugPort}/debug/actors`)).json()) as { actors: { id: string; value: unknown }[] }).actors;

  afterAll(async () => {
    await driver?.stop();
    if (kubelet && kubelet.exitCode === null) kubelet.kill('SIGKILL');
    await removePods({ endpoint: 'embedded', rootDir: root });
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('registers a driver serving before the kubelet starts, writing no CSINode, and lets it go with its socket', async () => {
    driver = await startCsiMockDriver(root);
    await until('the driver\'s registration socket', () => existsSync(join(root, 'plugins_registry', `${CSI_MOCK_DRIVER_NAME}-reg.sock`)), 10_000, () => driver!.log());
    debugPort = await freePort();
    mkdirSync(join(dir, 'manifests'));
    writeServerTestConfig(dir, { port: await freePort(), readOnlyPort: 0 });
    kubelet = spawn(process.execPath, [
      KUBELET_BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`, `--cert-dir=${join(dir, 'pki')}`,
      `--debug-address=127.0.0.1:${debugPort}`, '--hostname-override=csi-standalone',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    kubelet.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));

    await until('the driver told it was registered', () => toldRegistered(driver!.log()), 30_000, () => stderr);
    expect((await actors()).find((a) => a.id === actorId)?.value).toBe('registered');
    expect((await actors()).find((a) => a.id === 'pluginManager')?.value).toEqual({ csiNode: 'notNeeded', watcher: 'watching' });
    await until('the registration logged', () => stderr.includes('"msg":"kubernetes.io/csi: Registered CSI driver"'), 5_000, () => stderr);

    await driver.stop();
    await until('the driver\'s actor gone', async () => !(await actors()).some((a) => a.id === actorId), 10_000, () => stderr);
    await until('the deregistration logged', () => stderr.includes('registrationHandler.DeRegisterPlugin request for plugin'), 5_000, () => stderr);
  }, 60_000);

  it('stops cleanly and leaves a journal that replays identically', async () => {
    const exited = new Promise<number | null>((done) => kubelet!.once('exit', done));
    kubelet!.kill('SIGTERM');
    expect(await exited).toBe(0);
    const r = runKubeletCommand('replay', [join(root, 'events', 'latest.jsonl')]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 30_000);
});
