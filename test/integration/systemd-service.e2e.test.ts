/**
 * kubelet-ts as systemd runs it: the repository's own unit file (contrib/systemd/kubelet-ts.service,
 * Type=notify, NotifyAccess=all) linked into a real systemd 252 (../shared/lab/systemd), with a
 * drop-in for what a test changes (ExecStart with the bundle and a temporary node, WatchdogSec, no
 * restart so a watchdog kill would show). Standalone on the embedded runtime. systemd must count it
 * active only once READY=1 came, and see its watchdog fed for longer than WatchdogSec without
 * killing it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/daemon.js';
import { KUBELET_BIN } from '../support/kubelet-bin.js';
import { describeNeeding } from '../support/real-parts.js';
import { startSystemdLab, systemdLabPart, type SystemdLab } from '../support/systemd-lab.js';

const UNIT = 'kubelet-ts.service';
const WATCHDOG_SEC = 4;

describeNeeding(systemdLabPart(), 'kubelet-ts as a Type=notify systemd service with WatchdogSec', () => {
  let lab: SystemdLab | undefined;
  let dir: string;
  const log = () => { try { return readFileSync(join(dir, 'kubelet.log'), 'utf8'); } catch { return ''; } };

  beforeAll(async () => {
    lab = await startSystemdLab();
    dir = mkdtempSync(join(tmpdir(), 'kts-sd-service-'));
    const root = join(dir, 'root');
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
      `staticPodPath: ${join(dir, 'manifests')}`, `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded',
      'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
      'enableServer: false', 'healthzPort: 0', '',
    ].join('\n'));
    // The repository's unit itself, as `systemctl link` would make it: a link in a unit directory
    // (this systemd's only one is the lab's), and the test's changes in a drop-in beside it.
    symlinkSync(resolve('contrib/systemd', UNIT), join(lab.dir, 'units', UNIT));
    mkdirSync(join(lab.dir, 'units', `${UNIT}.d`));
    const args = [
      KUBELET_BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${root}`, `--device-plugins-dir=${join(root, 'device-plugins')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--debug-address=127.0.0.1:0', '--hostname-override=sd-service-node',
    ];
    writeFileSync(join(lab.dir, 'units', `${UNIT}.d`, '50-test.conf'), [
      '[Service]',
      'ExecStart=',
      `ExecStart=${process.execPath} ${args.join(' ')}`,
      `WatchdogSec=${WATCHDOG_SEC}`,
      'Restart=no',
      `Environment=KUBELET_TS_NO_QOS_CGROUPS=1 KUBELET_TS_LEGACY_LOG_DIR=${join(dir, 'log-links')}`,
      `StandardError=append:${join(dir, 'kubelet.log')}`,
      '',
    ].join('\n'));
    await lab.systemctl(['daemon-reload']);
  }, 120_000);

  afterAll(async () => {
    await lab?.systemctl(['stop', UNIT], true);
    await lab?.down();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('is active only after READY=1, and its watchdog is fed past WatchdogSec without a kill', async () => {
    const props = ['ActiveState', 'SubState', 'MainPID', 'NRestarts', 'Result', 'Type', 'NotifyAccess', 'WatchdogUSec', 'WatchdogTimestampMonotonic'];
    await lab!.systemctl(['start', '--no-block', UNIT]);
    const first = await until('the unit started', async () => {
      const s = await lab!.show(UNIT, props);
      return s.ActiveState !== 'inactive' ? s : false;
    }, 30_000, log);
    expect(first).toMatchObject({ Type: 'notify', NotifyAccess: 'all', WatchdogUSec: `${WATCHDOG_SEC}s` });
    // Start-up takes seconds: before READY=1 (run.sdNotify, the last phase) systemd holds the unit in activating/start.
    expect([first.ActiveState, first.SubState]).toEqual(['activating', 'start']);
    expect(log()).not.toContain('"phase":"run.sdNotify"');

    const active = await until('the unit active', async () => {
      const s = await lab!.show(UNIT, props);
      return s.ActiveState === 'active' ? s : s.ActiveState === 'activating' ? false : Promise.reject(new Error(JSON.stringify(s)));
    }, 90_000, log);
    // READY=1 went out from run.sdNotify, the last phase, and systemd took it.
    expect(log()).toContain('"phase":"run.sdNotify"');
    expect(log()).toMatch(/Starting systemd watchdog with interval.*"interval":"2s"|"interval":"2s".*Starting systemd watchdog with interval/);
    expect(log()).not.toContain('Failed to notify watchdog');
    const pid = active.MainPID;
    const fedAt = Number(active.WatchdogTimestampMonotonic);
    expect(fedAt).toBeGreaterThan(0);

    // A feed stamped more than WatchdogSec after the first, by systemd's own clock: a kubelet that
    // had missed a whole WatchdogSec between them would have been killed (SIGABRT) instead.
    const spanUsec = (WATCHDOG_SEC + 1) * 1_000_000;
    const later = await until(`a feed ${WATCHDOG_SEC + 1} s after the first`, async () => {
      const s = await lab!.show(UNIT, props);
      if (s.ActiveState !== 'active') throw new Error(`the unit left active: ${JSON.stringify(s)}`);
      return Number(s.WatchdogTimestampMonotonic) - fedAt > spanUsec ? s : false;
    }, (WATCHDOG_SEC + 10) * 1000, log);
    expect(later).toMatchObject({ ActiveState: 'active', SubState: 'running', MainPID: pid, NRestarts: '0', Result: 'success' });
    expect(Number(later.WatchdogTimestampMonotonic)).toBeGreaterThan(fedAt);
    // Fed every interval (2 s), not only once: within the last interval and a bit.
    const again = await until('another feed', async () => {
      const s = await lab!.show(UNIT, ['WatchdogTimestampMonotonic']);
      return Number(s.WatchdogTimestampMonotonic) > Number(later.WatchdogTimestampMonotonic) ? s : false;
    }, 10_000, log);
    expect(Number(again.WatchdogTimestampMonotonic)).toBeGreaterThan(Number(later.WatchdogTimestampMonotonic));

    await lab!.systemctl(['stop', UNIT]);
    expect(await lab!.show(UNIT, ['ActiveState', 'Result'])).toEqual({ ActiveState: 'inactive', Result: 'success' });
  }, 180_000);
});
