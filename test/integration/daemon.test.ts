/**
 * The real binary, as a person runs it: start-up through the supervisor's phases on this machine,
 * the journal it leaves, `replay` and `report` on that journal.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-daemon-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], timeout = 20_000) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout });
}

/** Starts the daemon, waits until its stderr log says `text`, then SIGTERMs it. */
function runUntilLogged(args: string[], text: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    let signalled = false;
    // A deadline, not a wait: the log line normally comes first and clears it; this only ends a hung daemon.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`daemon never logged ${JSON.stringify(text)}:\n${stderr}`));
    }, 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!signalled && stderr.includes(text)) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

describe('kubelet-ts (the binary)', () => {
  it('prints usage for --help and exits 0', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--container-runtime-endpoint');
    expect(r.stdout).toContain('--pod-manifest-path');
  });

  it('prints its version for --version', () => {
    const r = run(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Kubernetes v1\.\d+\.\d+/);
  });

  it.each([
    [['--no-such-flag']],
    [['stray-word']],
  ])('rejects %j with usage on stderr and exit 1', (args) => {
    const r = run([...args, `--root-dir=${join(dir, 'unused')}`, '--debug-address=']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('command.parse');
    expect(r.stderr).toContain('Usage:');
  });

  it('stops at the first invalid configuration naming every field', () => {
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: -1\nhealthzPort: 70000\n');
    const r = run([`--config=${cfg}`, `--root-dir=${join(dir, 'bad')}`, '--debug-address=']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('command.validateConfig');
    expect(r.stderr).toContain('maxPods');
    expect(r.stderr).toContain('healthzPort');
  });

  describe('not run by systemd, or by a unit without WatchdogSec', () => {
    const { NOTIFY_SOCKET: _socket, WATCHDOG_USEC: _usec, WATCHDOG_PID: _pid, ...outside } = process.env;
    const args = (name: string) => {
      const root = join(dir, name);
      const cfg = join(dir, `${name}.yaml`);
      writeFileSync(cfg, [
        'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'enableServer: false', 'healthzPort: 0',
        'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}', `podLogsDir: ${join(dir, `${name}-logs`)}`, '',
      ].join('\n'));
      return [`--config=${cfg}`, `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`, '--container-runtime-endpoint=embedded', '--debug-address='];
    };

    it('starts no watchdog feeder and sends nothing', async () => {
      const r = await runUntilLogged(args('no-systemd'), 'Systemd watchdog is not enabled', outside);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('Starting systemd watchdog');
      expect(r.stderr).not.toContain('notify watchdog');
    }, 40_000);

    it('refuses a watchdog timeout of a second or less, as Go', () => {
      const r = spawnSync(process.execPath, [BIN, ...args('short-watchdog')], { encoding: 'utf8', timeout: 30_000, env: { ...outside, WATCHDOG_USEC: '500000' } });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('start-up failed in phase startKubelet.run: KLT_ERR_CONFIG_INVALID: configure watchdog timeout too small: 500ms');
    });
  });

  it('keeps secrets from the configuration out of the event log', async () => {
    const root = join(dir, 'secret');
    const cfg = join(dir, 'secret.yaml');
    const SECRET = 'Bearer sup3r-s3cret-t0ken';
    writeFileSync(cfg, [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
      'staticPodURL: http://127.0.0.1:9/pods', `staticPodURLHeader: {"Authorization": ["${SECRET}"]}`,
      'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
      'enableServer: false', 'healthzPort: 0', `podLogsDir: ${join(dir, 'secret-logs')}`, '',
    ].join('\n'));
    // Stopped once the URL source's first failure (where the header could leak) has been reported.
    const r = await runUntilLogged([`--config=${cfg}`, `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`, '--container-runtime-endpoint=embedded', '--debug-address='], 'Pod source has manifests it cannot use');
    expect(r.code).toBe(0);
    const log = readFileSync(join(root, 'events', 'latest.jsonl'), 'utf8');
    expect(log).toContain('staticPodURLHeader');
    expect(log).toContain('pod.source.failed');
    expect(log).not.toContain('sup3r-s3cret');
  }, 40_000);

  describe('waiting for an absent runtime, then SIGTERM', () => {
    const root = () => join(dir, 'waiting');
    const log = () => join(root(), 'events', 'latest.jsonl');
    let result: { code: number | null; stderr: string };

    beforeAll(async () => {
      // Stopped while it waits out a back-off, as a stuck start-up would: the line says it does.
      result = await runUntilLogged([
        `--root-dir=${root()}`, `--device-plugins-dir=${root()}/device-plugins`,
        `--container-runtime-endpoint=unix://${join(dir, 'absent.sock')}`,
        '--debug-address=127.0.0.1:0',
        // Not the default 10248, which another file's kubelet may hold at the same moment.
        '--healthz-port=0',
        '--hostname-override=Node-A',
      ], 'Container runtime not ready, waiting');
    }, 40_000);

    it('waits with a reason instead of crashing, and exits 0 on SIGTERM', () => {
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('Container runtime not ready, waiting');
      expect(result.stderr).toContain('Kubelet stopped');
    });

    it('leaves a journal that replays identically', () => {
      const r = run(['replay', log()]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^replay: identical: \d+ records, \d+ actors, [\d.]+s simulated\n$/);
      const header = JSON.parse(readFileSync(log(), 'utf8').split('\n')[0]!);
      expect(header).toMatchObject({ format: 'kubelet-ts.journal', version: 4, nodeName: 'node-a', segment: 1 });
      expect(header.configSha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it('reports every phase reached with a duration, and what the last one waited on', () => {
      const r = run(['report', log(), '--json']);
      expect(r.status).toBe(0);
      const report = JSON.parse(r.stdout);
      const reached = report.phases.filter((p: { startMs: number | null }) => p.startMs !== null);
      expect(reached.map((p: { phase: string }) => p.phase)).toContain('run.auth');
      for (const p of reached) expect(typeof p.durationMs).toBe('number');
      const pre = report.phases.find((p: { phase: string }) => p.phase === 'run.preInitRuntime');
      expect(pre.outcome).toBe('interrupted');
      expect(pre.waitingOn).toContain('is not answering');
      expect(report.finalState).toBe('stopped');
      const table = run(['report', log()]);
      expect(table.stdout).toContain('run.preInitRuntime');
      expect(table.stdout).toContain('critical path:');
    });

    it('names the first divergent record when a derived record was edited', () => {
      const lines = readFileSync(log(), 'utf8').trimEnd().split('\n');
      const idx = lines.findIndex((l, i) => i > 0 && JSON.parse(l).kind === 'derived' && JSON.parse(l).type === 'state' && i > 10);
      const rec = JSON.parse(lines[idx]!);
      rec.payload = { value: 'tampered', status: 'active' };
      lines[idx] = JSON.stringify(rec);
      const edited = join(dir, 'edited.jsonl');
      writeFileSync(edited, lines.join('\n') + '\n');
      const r = run(['replay', edited]);
      expect(r.status).toBe(1);
      expect(r.stdout).toContain(`diverged at seq ${rec.seq}`);
    });

    it('reads a log cut mid-line, reporting the torn line', () => {
      const text = readFileSync(log(), 'utf8');
      const cut = join(dir, 'cut.jsonl');
      writeFileSync(cut, text.slice(0, text.length - 40));
      const r = run(['report', cut]);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/skipped line \d+ of .*cut\.jsonl: torn last line/);
    });

    it('refuses a file that is not an event log with exit 2', () => {
      const other = join(dir, 'other.jsonl');
      writeFileSync(other, '{"hello":1}\n');
      expect(run(['replay', other]).status).toBe(2);
      const future = join(dir, 'future.jsonl');
      writeFileSync(future, JSON.stringify({ format: 'kubelet-ts.journal', version: 99 }) + '\n');
      const r = run(['replay', future]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('version 99');
    });
  });
});
