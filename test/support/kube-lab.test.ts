/**
 * The real control plane's harness, with stand-in scripts: up.sh runs once per lab directory however
 * many files ask at once, a failure reaches every caller naming what failed without running up.sh
 * again, and a missing lab is reported with where it was looked for.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeLabPart, kubeLabPartFor, upOnce } from './kube-lab.js';

const dirs: string[] = [];
const fresh = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Scripts whose up.sh counts its runs in <scripts>/runs, then runs `body`. Its 0.3 s stands for a
 * real up.sh's start-up time (callers asking meanwhile must not start another), not a wait.
 */
function fakeScripts(body: string): string {
  const scripts = fresh('kts-fake-lab-scripts-');
  // A fake up.sh that takes a moment, so two callers overlap in it; the test asserts on the runs file.
  writeFileSync(join(scripts, 'up.sh'), `echo run >> "${scripts}/runs"\nsleep 0.3\n${body}\n`);
  return scripts;
}
const runs = (scripts: string) => readFileSync(join(scripts, 'runs'), 'utf8').split('\n').filter(Boolean).length;

describe('upOnce', () => {
  it('runs up.sh once for callers that ask together, and gives each the lab it printed', async () => {
    const scripts = fakeScripts([
      'echo "kube-lab: up" >&2',
      'echo "export KUBE_LAB=$KUBE_LAB"', 'echo "export KUBE_LAB_SERVER=https://127.0.0.1:6443"',
      'echo "export KUBE_LAB_CA=$KUBE_LAB/pki/ca.crt"', 'echo "export KUBECONFIG=$KUBE_LAB/admin.kubeconfig"',
    ].join('\n'));
    const dir = fresh('kts-fake-lab-');
    const labs = await Promise.all([upOnce(dir, scripts), upOnce(dir, scripts), upOnce(dir, scripts)]);
    expect(runs(scripts)).toBe(1);
    for (const lab of labs) expect(lab).toMatchObject({ dir, server: 'https://127.0.0.1:6443', ca: `${dir}/pki/ca.crt`, adminKubeconfig: `${dir}/admin.kubeconfig` });
  });

  it('finds the lab up at once for a later caller while the daemons up.sh started run', async () => {
    const scripts = fakeScripts([
      // A daemon as up.sh starts its own: detached, outliving up.sh, its pid kept.
      'setsid sleep 60 </dev/null >/dev/null 2>&1 & echo $! > "$KUBE_LAB/daemon.pid"',
      'echo "export KUBE_LAB_SERVER=https://127.0.0.1:6443"', 'echo "export KUBE_LAB_CA=$KUBE_LAB/ca.crt"', 'echo "export KUBECONFIG=$KUBE_LAB/admin.kubeconfig"',
    ].join('\n'));
    const dir = fresh('kts-fake-lab-');
    try {
      await upOnce(dir, scripts);
      const started = Date.now();
      await upOnce(dir, scripts);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(runs(scripts)).toBe(1);
    } finally {
      try {
        process.kill(Number(readFileSync(join(dir, 'daemon.pid'), 'utf8')));
      } catch { /* already gone */ }
    }
  }, 90_000);

  it('a failed up.sh fails every caller with its last words, and is not run again', async () => {
    const scripts = fakeScripts('echo "kube-lab: FAILED: etcd did not become healthy (logs/etcd.log)" >&2; exit 1');
    const dir = fresh('kts-fake-lab-');
    const first = upOnce(dir, scripts);
    await expect(first).rejects.toThrow(/^bringing up the real control plane \(.*\/up\.sh, KUBE_LAB=.*\) failed \(exit 1\):\nkube-lab: FAILED: etcd did not become healthy/);
    await expect(upOnce(dir, scripts)).rejects.toThrow('kube-lab: FAILED: etcd did not become healthy');
    expect(runs(scripts)).toBe(1);
  });

  it('chooses the ports below the ephemeral range before up.sh runs, where no connect() or listen(0) takes them', async () => {
    const scripts = fakeScripts('. "$KUBE_LAB/ports"; echo "export KUBE_LAB_SERVER=https://127.0.0.1:$API_PORT"; echo "export KUBE_LAB_CA=c"; echo "export KUBECONFIG=k"');
    const lab = await upOnce(fresh('kts-fake-lab-'), scripts);
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
    const port = Number(new URL(lab.server).port);
    expect(port).toBeGreaterThanOrEqual(1024);
    expect(port).toBeLessThan(ephemeralLow);
  });

  it('a start that lost a port to another process is stopped and run again on new ports', async () => {
    const scripts = fakeScripts([
      'if [ "$(wc -l < "$(dirname "$0")/runs")" = 1 ]; then',
      '  echo "listen tcp 127.0.0.1:$(cut -d" " -f1 "$KUBE_LAB/ports"): bind: address already in use" >&2; exit 1',
      'fi',
      '. "$KUBE_LAB/ports"; echo "export KUBE_LAB_SERVER=https://127.0.0.1:$API_PORT"; echo "export KUBE_LAB_CA=c"; echo "export KUBECONFIG=k"',
    ].join('\n'));
    writeFileSync(join(scripts, 'down.sh'), `echo down >> "${scripts}/downs"\n`);
    const dir = fresh('kts-fake-lab-');
    const lab = await upOnce(dir, scripts);
    expect(runs(scripts)).toBe(2);
    expect(readFileSync(join(scripts, 'downs'), 'utf8')).toBe('down\n');
    expect(lab.server).toBe(`https://127.0.0.1:${/API_PORT=(\d+)/.exec(readFileSync(join(dir, 'ports'), 'utf8'))![1]}`);
  });

  it('an up.sh that prints no server is an error naming the missing export', async () => {
    const scripts = fakeScripts('echo "export KUBE_LAB=$KUBE_LAB"');
    await expect(upOnce(fresh('kts-fake-lab-'), scripts)).rejects.toThrow(/up\.sh printed no KUBE_LAB_SERVER/);
  });
});

describe('kubeLabPart', () => {
  it('is missing, saying where it looked, when the scripts are absent', () => {
    const scripts = join(fresh('kts-no-lab-'), 'lab', 'kube');
    const part = kubeLabPart({ KUBELET_IT_KUBE_LAB_SCRIPTS: scripts, KUBECTL: '/bin/sh', PATH: '/usr/bin:/bin' });
    expect(part.missing).toContain(`the real control plane's scripts are absent (${scripts}`);
  });

  it('is there with up.sh beside it and kubectl installed', () => {
    const scripts = fakeScripts('exit 0');
    const part = kubeLabPart({ KUBELET_IT_KUBE_LAB_SCRIPTS: scripts, KUBECTL: '/bin/sh', PATH: `${scripts}:/usr/bin:/bin` });
    expect(part.missing).toBe('');
  });

  it('names a kubectl that is not there', () => {
    const part = kubeLabPart({ KUBELET_IT_KUBE_LAB_SCRIPTS: fakeScripts('exit 0'), KUBECTL: '/nowhere/kubectl', PATH: '/usr/bin:/bin' });
    expect(part.missing).toBe('kubectl is not installed at /nowhere/kubectl (apt-get install kubernetes-client)');
  });
});

describe('kubeLabPartFor', () => {
  it('needs containerd besides the lab for a socket, not for the embedded runtime', () => {
    const env = { KUBELET_IT_KUBE_LAB_SCRIPTS: fakeScripts('exit 0'), KUBECTL: '/bin/sh', PATH: '/usr/bin:/bin' };
    expect(kubeLabPartFor('embedded', env).missing).toBe('');
    expect(kubeLabPartFor('', env).missing).toContain('KUBELET_IT_CRI is unset');
    expect(kubeLabPartFor('unix:///run/c.sock', { ...env, KUBELET_IT_CRI: 'unix:///run/c.sock' }).missing).toBe('');
  });
});
