/**
 * Hostile peers against the real kubelet: nothing a peer or a file sends may hold the event
 * loop. The bundled binary runs standalone on the embedded runtime with no pods, with loop-probe.ts
 * loaded into it; each case points a misbehaving peer at it for `seconds` and measures the window
 * (loop-window.ts): the loop's longest stall and the RSS growth. The state files a kubelet reads at
 * start are read by the daemon's readers in a process of their own (hostile-state-files.ts).
 *
 * Each case runs `reps` windows. Target per case: refused, bounded or answered, with the longest
 * stall under 100 ms (the windows' median) and the RSS growth under 64 MiB (their largest): PASS or
 * FAIL. An idle case first shows what the machine's noise alone costs.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_DEVICES_PER_RESOURCE } from '../src/domain/device-manager/device-list-limits.js';
import { deviceListFlood } from './hostile-device-plugin.js';
import { oversizedCsiAnswers } from './hostile-csi-driver.js';
import { silentPodResourcesConnections, silentRegistrationConnections } from './hostile-connections.js';
import { podResourcesListLoop } from './hostile-pod-resources.js';
import { hostilePluginDir } from './hostile-plugin-dir.js';
import { readPlanted, STATE_FILE_CASES } from './hostile-state-files.js';
import { sleep, type HostileCase, type HostileKubelet, type HostileResult } from './hostile-case.js';
import { startDaemon } from './kubelet-daemon.js';
import { LOOP_PROBE_ENV } from './loop-probe.js';
import { openWindow, type WindowFigures } from './loop-window.js';
import { median } from './stats.js';

export const HOSTILE_STALL_TARGET_MS = 100;
export const HOSTILE_RSS_TARGET_MIB = 64;
const START_TIMEOUT_MS = 60_000;

const LIVE_CASES: HostileCase[] = [
  deviceListFlood(1_000), deviceListFlood(MAX_DEVICES_PER_RESOURCE), deviceListFlood(60_000), oversizedCsiAnswers, silentRegistrationConnections, silentPodResourcesConnections, podResourcesListLoop, hostilePluginDir,
];

const idle: HostileCase = {
  name: 'idle (no peer): the machine\'s noise',
  async attack(_k, seconds) {
    await sleep(seconds * 1000);
    return { outcome: 'answered', detail: 'nothing sent' };
  },
};

/** A case's windows: the longest stall of each, the largest RSS growth, the median CPU. */
interface Row {
  name: string;
  outcome: string;
  detail: string;
  stallsMs: number[];
  rssGrowthMiB: number;
  cpuSeconds: number;
}

/**
 * On a shared machine a window's longest stall also holds the time the kubelet waited for a core;
 * that noise differs from window to window, a peer's own cost does not, so the verdict takes the
 * median of the windows' longest stalls (and the table shows their range).
 */
const stallOf = (r: Row) => median(r.stallsMs);
const pass = (r: Row) => stallOf(r) < HOSTILE_STALL_TARGET_MS && r.rssGrowthMiB < HOSTILE_RSS_TARGET_MIB;

function rowOf(name: string, runs: readonly (HostileResult & WindowFigures)[]): Row {
  return {
    name,
    outcome: [...new Set(runs.map((r) => r.outcome))].join(' / '),
    detail: runs.at(-1)!.detail,
    stallsMs: runs.map((r) => r.maxStallMs),
    rssGrowthMiB: Math.max(...runs.map((r) => r.rssGrowthMiB)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
  };
}

async function until(what: string, ready: () => boolean, stderr: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`kubelet-ts: no ${what} after ${START_TIMEOUT_MS} ms\n${stderr()}`);
    await sleep(100);
  }
}

/**
 * KUBELET_BENCH_HOSTILE_ONLY: only the cases whose name holds it (after the idle one);
 * KUBELET_BENCH_CPU_PROF=DIR runs the kubelet with --cpu-prof into DIR, to see where a case's stall goes.
 */
const only = process.env.KUBELET_BENCH_HOSTILE_ONLY ?? '';
const profileDir = process.env.KUBELET_BENCH_CPU_PROF;

async function liveCases(seconds: number, reps: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bench-hostile-'));
  const paths = { dir, manifests: join(dir, 'manifests'), logs: join(dir, 'logs'), root: join(dir, 'root') };
  mkdirSync(paths.manifests, { recursive: true });
  const probe = join(dir, 'loop-probe.sock');
  const daemon = await startDaemon(paths, 'embedded', 'hostile-node', {
    nodeArgs: ['--import', new URL('./loop-probe.js', import.meta.url).href, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    env: { [LOOP_PROBE_ENV]: probe },
  });
  const lines: string[] = [];
  let partial = '';
  daemon.child.stderr!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const k: HostileKubelet = {
    daemon, root: paths.root,
    devicePluginsDir: join(paths.root, 'device-plugins'),
    pluginsDir: join(paths.root, 'plugins_registry'),
    podResourcesSocket: join(paths.root, 'pod-resources', 'kubelet.sock'),
    logFromNow: () => {
      const from = lines.length;
      return () => lines.slice(from);
    },
  };
  try {
    await until('device plugin registration socket', () => existsSync(join(k.devicePluginsDir, 'kubelet.sock')), daemon.stderrTail);
    await until('pod resources socket', () => existsSync(k.podResourcesSocket), daemon.stderrTail);
    await until('plugin watcher', () => lines.some((l) => l.includes('"msg":"Plugin Watcher Start"')), daemon.stderrTail);
    // Past the start-up's own work: the windows measure the peers, not the kubelet's first seconds.
    await sleep(5000);
    const rows: Row[] = [];
    for (const c of [idle, ...LIVE_CASES].filter((x) => x === idle || x.name.includes(only))) {
      const runs: (HostileResult & WindowFigures)[] = [];
      for (let rep = 0; rep < reps; rep++) {
        c.prepare?.(k);
        const close = await openWindow(daemon.pid, probe);
        const result = await c.attack(k, seconds);
        // What the kubelet still does about the attack once it ended belongs to the case.
        await sleep(1000);
        runs.push({ ...result, ...(await close()) });
        report(c.name, runs.at(-1)!);
        if (daemon.child.exitCode !== null) throw new Error(`kubelet-ts exited during "${c.name}":\n${daemon.stderrTail()}`);
      }
      rows.push({ ...rowOf(c.name, runs), ...(c === idle ? { outcome: '—' } : {}) });
    }
    return rows;
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(name: string, r: HostileResult & WindowFigures): void {
  process.stdout.write(`hostile: ${name}: ${r.outcome}, ${r.detail}, stall ${r.maxStallMs.toFixed(1)} ms, RSS +${r.rssGrowthMiB.toFixed(1)} MiB, CPU ${r.cpuSeconds.toFixed(2)} s\n`);
}

function table(rows: readonly Row[]): string {
  const head = ['case', 'outcome', 'what the kubelet did (last window)', 'longest stall, ms: median (range)', 'RSS growth (MiB)', 'kubelet CPU (s)', `verdict (< ${HOSTILE_STALL_TARGET_MS} ms, < ${HOSTILE_RSS_TARGET_MIB} MiB)`];
  const stall = (r: Row) => (r.stallsMs.length === 1 ? r.stallsMs[0]!.toFixed(1) : `${stallOf(r).toFixed(1)} (${Math.min(...r.stallsMs).toFixed(1)}–${Math.max(...r.stallsMs).toFixed(1)})`);
  const body = rows.map((r) => [r.name, r.outcome, r.detail, stall(r), r.rssGrowthMiB.toFixed(1), r.cpuSeconds.toFixed(2), r.outcome === '—' ? '—' : pass(r) ? 'PASS' : 'FAIL']);
  return [head, head.map(() => '---'), ...body].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** KUBELET_BENCH_HOSTILE_SECONDS: each window's attack; KUBELET_BENCH_HOSTILE_REPS: windows per case. */
export async function benchHostile(
  seconds = Number(process.env.KUBELET_BENCH_HOSTILE_SECONDS ?? 3),
  reps = Number(process.env.KUBELET_BENCH_HOSTILE_REPS ?? 3),
): Promise<Record<string, number | string>> {
  const rows = await liveCases(seconds, reps);
  // Each is read once: the refusals take milliseconds, the read the bound lets through takes seconds.
  for (const c of STATE_FILE_CASES.filter((x) => x.name.includes(only))) {
    const r = readPlanted(c);
    report(c.name, r);
    rows.push(rowOf(c.name, [r]));
  }
  process.stdout.write(`\n${table(rows)}\n\n`);
  const cases = rows.filter((r) => r.outcome !== '—');
  return {
    seconds,
    reps,
    cases: cases.length,
    passed: cases.filter(pass).length,
    worstMedianStallMs: Math.round(Math.max(...cases.map(stallOf)) * 10) / 10,
    worstRssGrowthMiB: Math.round(Math.max(...cases.map((r) => r.rssGrowthMiB)) * 10) / 10,
  };
}
