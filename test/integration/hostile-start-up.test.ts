/**
 * The real binary given hostile input at start-up (#14 items 3, 4, 5, 8): each ends promptly in exit 1
 * with one line naming the phase and the file or path, never a stack trace (exit 70) or a hang.
 * Needs `npm run build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kts-hostile-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the binary; a hang shows as a null status (killed at the timeout). */
// No healthz port: a start-up that fails after run.healthz would hold 10248 while other files' kubelets start.
function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, '--debug-address=', '--healthz-port=0', '--container-runtime-endpoint=embedded', ...args], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
}

function configFile(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${body}`);
  return path;
}

const ALIAS_BOMB = 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n';

describe('kubelet-ts start-up with hostile input (#14)', () => {
  it.each([
    ['an unresolved alias', 'alias.yaml', 'clusterDomain: *nope\n', 'Unresolved alias'],
    ['an alias bomb', 'bomb.yaml', ALIAS_BOMB, 'Excessive alias count'],
  ])('exits 1 naming the config file for %s, without a stack trace', (_what, name, body, reason) => {
    const path = configFile(name, body);
    const r = run([`--config=${path}`, `--root-dir=${join(dir, 'root')}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`start-up failed in phase command.loadConfigFile: KLT_ERR_CONFIG_PARSE: failed to load kubelet config file ${path}: ${reason}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  const TOKEN = 's3cr3t-T0KEN-value';
  const KEY_DATA = 'UExBSU5LRVlEQVRB';
  /** A kubeconfig whose token line (17) is indented one space less than the lines around it. */
  const BAD_INDENT_KUBECONFIG = [
    'apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', '    server: https://127.0.0.1:1',
    'contexts:', '- name: ctx', '  context:', '    cluster: c', '    user: u', 'current-context: ctx',
    'users:', '- name: u', '  user:', '    client-certificate-data: Q0VSVA==', `   token: ${TOKEN}`, `    client-key-data: ${KEY_DATA}`, '',
  ].join('\n');

  it.each([
    ['--kubeconfig', 'run.clients', (path: string) => [`--kubeconfig=${path}`]],
    ['--bootstrap-kubeconfig', 'run.bootstrap', (path: string) => [`--bootstrap-kubeconfig=${path}`, `--kubeconfig=${join(dir, 'bootstrapped.kubeconfig')}`, `--cert-dir=${join(dir, 'pki')}`]],
  ])('exits 1 for a bad indent in the %s, naming file:line:col, the token and key on no output (#60)', (_flag, phase, flags) => {
    const path = join(dir, `bad-indent-${Math.random().toString(36).slice(2)}.kubeconfig`);
    writeFileSync(path, BAD_INDENT_KUBECONFIG);
    const eventLog = join(dir, `events-${Math.random().toString(36).slice(2)}`);
    const r = run([...flags(path), `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--event-log=${eventLog}/`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`start-up failed in phase ${phase}: KLT_ERR_API_CONFIG: invalid kubeconfig, not YAML: ${path}:17:1: bad indentation (BAD_INDENT)`);
    const journal = readdirSync(eventLog, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1')).join('');
    expect(journal).toContain(`${path}:17:1: bad indentation`);
    for (const output of [r.stdout, r.stderr, journal]) {
      for (const secret of [TOKEN, KEY_DATA, 'T0KEN', 's3cr3t']) expect(output).not.toContain(secret);
    }
  });

  it('exits 1 naming a FIFO given as --config instead of waiting for a writer', () => {
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = run([`--config=${fifo}`, `--root-dir=${join(dir, 'root')}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`failed to read kubelet config file ${JSON.stringify(fifo)}: is a FIFO, not a regular file`);
  });

  it.each([
    [['--event-log=/proc/nope/x'], 'command.dependencies', 'KLT_ERR_HOST_IO: cannot create directory /proc/nope', "mkdir '/proc/nope'"],
    [['--root-dir=/proc/x'], 'run.preInitRuntime', 'KLT_ERR_HOST_IO: cannot create directory /proc/x', "mkdir '/proc/x'"],
    [['--cert-dir=/proc/x/pki'], 'startKubelet.servers', 'KLT_ERR_TLS_CONFIG: cannot generate a self-signed certificate in /proc/x/pki', "mkdir '/proc/x'"],
  ])('fails start-up at once for %j, naming the phase, the error and the path, where a recursive mkdir spun for ever', (args, phase, error, path) => {
    const defaults = [`--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--event-log=${join(dir, 'events')}`];
    const r = run([...defaults, ...args]); // the later flag wins
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`start-up failed in phase ${phase}: ${error}`); // the host's error, not KLT_ERR_INTERNAL
    expect(r.stderr).toContain(path);
  });

  it('refuses invalid values from the file and the flags together, every field named (item 5)', () => {
    const path = configFile('values.yaml', 'cpuManagerPolicy: bogus\nauthorization: {mode: Bogus}\nqosReserved: {memory: 200%}\n');
    const r = run([`--config=${path}`, `--root-dir=${join(dir, 'root')}`, '--kube-reserved=memory=-1Gi', '--container-log-max-size=10Qi']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('start-up failed in phase command.validateConfig');
    for (const field of ['cpuManagerPolicy (--cpu-manager-policy)', 'authorization.mode (--authorization-mode)', 'qosReserved (--qos-reserved)', 'kubeReserved (--kube-reserved)', 'containerLogMaxSize (--container-log-max-size)']) {
      expect(r.stderr).toContain(field);
    }
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses settings whose absence would weaken the node, and warns of the ones merely not acted on', () => {
    const refused = configFile('not-built.yaml', 'imagePullCredentialsVerificationPolicy: AlwaysVerify\nshutdownGracePeriod: 30s\npodsPerCore: 10\n');
    const r = run([`--config=${refused}`, `--root-dir=${join(dir, 'root')}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('start-up failed in phase command.validateConfig');
    expect(r.stderr).toMatch(/imagePullCredentialsVerificationPolicy.*pulled earlier/);
    // Built now (the node shutdown manager, the static CPU manager): not among the refusals.
    expect(r.stderr).not.toMatch(/shutdownGracePeriod/);

    const warned = configFile('not-acted-on.yaml', 'podsPerCore: 10\nmaxOpenFiles: 4096\ncontainerLogMaxFiles: 3\n');
    const c = spawnSync(process.execPath, [BIN, 'config', `--config=${warned}`], { encoding: 'utf8', timeout: 20_000 });
    expect(c.status).toBe(0);
    expect(c.stderr).toContain('warning: podsPerCore: 10 is accepted but not acted on by kubelet-ts (the Go kubelet would cap maxPods');
    expect(c.stderr).toContain('warning: maxOpenFiles: 4096 is accepted but not acted on');
    // Acted on (the container log manager keeps at most that many files): no warning.
    expect(c.stderr).not.toContain('containerLogMaxFiles');
  });

  it.each([
    ['a cgroup root that does not exist', ['--cgroup-root=/kts-missing-root'], 'has some missing paths', '/kts-missing-root'],
  ])('fails start-up in run.containerManager for %s, naming it (cgroupsPerQOS on)', (_what, args, error, path) => {
    // QoS cgroups on for this run: vitest.config.ts turns them off for every other kubelet.
    const r = run([`--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--event-log=${join(dir, 'events')}`, ...args], { KUBELET_TS_NO_QOS_CGROUPS: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('start-up failed in phase run.containerManager: KLT_ERR_CONFIG_INVALID: invalid configuration:');
    expect(r.stderr).toContain(error);
    expect(r.stderr).toContain(path);
  });

  it.each([['on', ''], ['off', '1']])(
    "refuses to start when the runtime's cgroup driver is not cgroupDriver, naming both, before any cgroup is made (QoS cgroups %s)",
    (_qos, noQos) => {
      // The embedded runtime answers RuntimeConfig with cgroupfs; the container manager's own checks come after.
      const r = run([`--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--event-log=${join(dir, 'events')}`, '--cgroup-driver=systemd'], { KUBELET_TS_NO_QOS_CGROUPS: noQos });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('start-up failed in phase run.cgroupDriverFromCRI: KLT_ERR_CONFIG_INVALID: invalid configuration: ' +
        'the container runtime uses the "cgroupfs" cgroup driver and the kubelet is configured with cgroupDriver (--cgroup-driver) "systemd"');
    },
  );
});
