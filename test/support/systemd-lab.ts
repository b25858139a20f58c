/**
 * A real systemd for a suite (../shared/lab/systemd): systemd 252 as PID 1 of its own PID, mount,
 * cgroup and UTS namespaces, with its own system bus. Each suite starts its own with up.sh and stops
 * it with down.sh; what must see a node's paths and PIDs (a kubelet, containerd, systemctl) runs
 * inside through the lab's exec.sh. The lab's scripts are never written to.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RealPart } from './real-parts.js';

/** Where up.sh and its companions are: the repository's sibling `shared/lab/systemd`, or KUBELET_IT_SYSTEMD_LAB_SCRIPTS. */
export function systemdLabScripts(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBELET_IT_SYSTEMD_LAB_SCRIPTS || resolve('..', 'shared', 'lab', 'systemd');
}

/** What the lab needs: its scripts, root (namespaces, cgroups), and systemd with dbus-daemon (.ci/run installs them). */
export function systemdLabPart(env: NodeJS.ProcessEnv = process.env): RealPart {
  const scripts = systemdLabScripts(env);
  const missing = [
    existsSync(join(scripts, 'up.sh')) ? '' : `the systemd lab's scripts are absent (${scripts}: ../shared/lab/systemd beside the repository, or set KUBELET_IT_SYSTEMD_LAB_SCRIPTS)`,
    process.getuid?.() === 0 ? '' : 'not root (the systemd lab makes namespaces and cgroups)',
    existsSync('/usr/lib/systemd/systemd') && existsSync('/usr/bin/dbus-daemon') ? '' : 'systemd or dbus is not installed (apt-get install systemd dbus)',
  ].filter(Boolean);
  return { name: 'a real systemd (../shared/lab/systemd)', missing: missing.join('; ') };
}

export interface CommandResult { code: number; stdout: string; stderr: string }

function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CommandResult> {
  return new Promise((done) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: 8 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

export interface SystemdLab {
  /** The lab's directory (KTS_SYSTEMD_LAB). */
  readonly dir: string;
  /** DBUS_SYSTEM_BUS_ADDRESS of its bus, the same path inside and outside. */
  readonly busAddress: string;
  /** The lab's exec.sh (it needs KTS_SYSTEMD_LAB in its environment: see `inside`). */
  readonly exec: string;
  /** The argv that runs `args` inside, from any environment. */
  inside(args: string[]): string[];
  /** Runs a command inside, in this process's directory and environment plus `env`. */
  run(args: string[], opts?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CommandResult>;
  /** `systemctl ARGS` inside; throws with its stderr on a non-zero exit unless `allowFailure`. */
  systemctl(args: string[], allowFailure?: boolean): Promise<string>;
  /** `systemctl show UNIT -p P...` as a map (an unknown unit answers its defaults, LoadState not-found). */
  show(unit: string, properties: readonly string[]): Promise<Record<string, string>>;
  /** The units matching a pattern (`kubepods*`), any state systemd still has them in. */
  units(pattern: string): Promise<string[]>;
  /** systemd's own log so far (its console). */
  console(): Promise<string>;
  down(): Promise<void>;
}

const parseExports = (text: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!.replace(/^'(.*)'$/, '$1');
  }
  return out;
};

/** up.sh, waiting until systemd runs; down.sh on `down()`. */
export async function startSystemdLab(env: NodeJS.ProcessEnv = process.env): Promise<SystemdLab> {
  const scripts = systemdLabScripts(env);
  // up.sh starts systemd under script(1), which runs its command with `$SHELL -c` (/bin/sh when SHELL
  // is unset, as in CI): dash forks where bash execs, and up.sh then never finds systemd as unshare's child.
  // The directory is chosen here so that down.sh can take down a systemd that up.sh started and then gave up on.
  const dir = mkdtempSync('/tmp/kts-systemd.');
  const up = await run('bash', [join(scripts, 'up.sh')], { ...env, SHELL: '/bin/bash', LAB: dir }, 120_000);
  const exports = parseExports(up.stdout);
  if (up.code !== 0 || exports['KTS_SYSTEMD_LAB'] !== dir) {
    await run('bash', [join(scripts, 'down.sh'), dir], env, 60_000);
    throw new Error(`the systemd lab's up.sh failed (exit ${up.code}):\n${up.stderr.slice(-3000)}`);
  }
  const exec = exports['KTS_SYSTEMD_EXEC'] ?? join(scripts, 'exec.sh');
  const busAddress = exports['DBUS_SYSTEM_BUS_ADDRESS'] ?? '';
  const labEnv = { ...env, ...exports };
  const inside = (args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) =>
    run(exec, args, { ...labEnv, ...opts.env }, opts.timeoutMs ?? 60_000);
  const systemctl = async (args: string[], allowFailure = false) => {
    const r = await inside(['systemctl', '--no-pager', ...args]);
    if (r.code !== 0 && !allowFailure) throw new Error(`systemctl ${args.join(' ')}: exit ${r.code}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  };
  return {
    dir,
    busAddress,
    exec,
    inside: (args) => ['env', `KTS_SYSTEMD_LAB=${dir}`, exec, ...args],
    run: inside,
    systemctl,
    show: async (unit, properties) => {
      const text = await systemctl(['show', ...properties.flatMap((p) => ['-p', p]), '--', unit]);
      return Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    },
    units: async (pattern) => {
      const text = await systemctl(['list-units', '--all', '--plain', '--no-legend', '--', pattern]);
      return text.split('\n').map((l) => l.trim().split(/\s+/)[0] ?? '').filter((u) => u !== '').sort();
    },
    console: async () => (await run('cat', [join(dir, 'console.log')], env, 10_000)).stdout,
    down: async () => {
      const r = await run('bash', [join(scripts, 'down.sh'), dir], env, 120_000);
      if (r.code !== 0) throw new Error(`the systemd lab's down.sh left something (exit ${r.code}):\n${r.stderr.slice(-2000)}`);
    },
  };
}

export interface LabContainerd {
  /** The CRI lab's directory. */
  dir: string;
  /** The CRI endpoint (unix:///…/containerd.sock). */
  endpoint: string;
  /** containerd's systemd unit. */
  unit: string;
  down(): Promise<void>;
}

/**
 * The project's containerd lab made inside the systemd lab, then turned into a kubeadm-like one by
 * the lab's containerd-systemd.sh: containerd as a systemd service with runc's `SystemdCgroup = true`.
 * `network` keeps its bridge, subnet and CNI network apart from the host's other labs.
 */
export async function startLabContainerd(lab: SystemdLab, dir: string, network: { bridge: string; subnet: string; name: string }): Promise<LabContainerd> {
  const scripts = systemdLabScripts();
  // On the command line, not in the environment: exec.sh assigns its own LAB, which an inherited LAB would carry.
  const settings = { LAB: dir, BRIDGE: network.bridge, POD_SUBNET: network.subnet, CNI_NETWORK: network.name, REGISTRY_CONFIG_DIR: join(dir, 'registry-hosts') };
  const up = await lab.run(['env', ...Object.entries(settings).map(([k, v]) => `${k}=${v}`), 'bash', '.ci/containerd/up.sh'], { timeoutMs: 300_000 });
  const down = async () => {
    const r = await lab.run(['bash', '.ci/containerd/down.sh', dir], { timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`containerd's down.sh inside the systemd lab left something (exit ${r.code}):\n${r.stderr.slice(-2000)}`);
  };
  if (up.code !== 0 || !existsSync(join(dir, 'config.toml'))) {
    await down().catch(() => {});
    throw new Error(`containerd's up.sh inside the systemd lab failed (exit ${up.code}):\n${up.stderr.slice(-3000)}`);
  }
  const sd = await run('bash', [join(scripts, 'containerd-systemd.sh'), dir], { ...process.env, KTS_SYSTEMD_LAB: lab.dir, KTS_SYSTEMD_EXEC: lab.exec, DBUS_SYSTEM_BUS_ADDRESS: lab.busAddress }, 120_000);
  if (sd.code !== 0) {
    await down().catch(() => {});
    throw new Error(`containerd-systemd.sh failed (exit ${sd.code}):\n${sd.stderr.slice(-3000)}`);
  }
  const exports = { ...parseExports(up.stdout), ...parseExports(sd.stdout) };
  const endpoint = exports['KUBELET_IT_CRI'] ?? `unix://${join(dir, 'containerd.sock')}`;
  const unit = exports['KUBELET_IT_CRI_UNIT'] ?? '';
  return { dir, endpoint, unit, down };
}
