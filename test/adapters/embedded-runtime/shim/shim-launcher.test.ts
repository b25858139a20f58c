/**
 * The detached shim on its own (no gRPC): launch, CRI log output, exit.json, leftover cleanup, spawn
 * errors, one shim for every container of a directory, and log re-opening. The shim is the transpiled shim.ts, as the runtime runs it from sources.
 */
import { watch } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readJsonFileSync } from '../../../../src/adapters/embedded-runtime/shim/atomic-file.js';
import { identifyProcess } from '../../../../src/adapters/embedded-runtime/shim/proc-stat.js';
import { launchThroughShim, resolveShimCommand, type ShimCommand } from '../../../../src/adapters/embedded-runtime/shim/shim-launcher.js';
import { EXIT_FILE, SHIM_FILE, STARTED_FILE, type ExitRecord, type LaunchSpec, type StartedRecord } from '../../../../src/adapters/embedded-runtime/shim/shim-protocol.js';

let scratch: string;
let shim: ShimCommand;
let dir: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'klt-shim-bin-'));
  shim = await resolveShimCommand(scratch);
  return () => rm(scratch, { recursive: true, force: true });
});
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'klt-shim-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

function spec(script: string, extra: Partial<LaunchSpec> = {}): LaunchSpec {
  return { command: ['sh', '-c', script], env: { PATH: '/usr/bin:/bin' }, cwd: dir, logPath: join(dir, 'logs', 'c', '0.log'), maxLineBytes: 16 * 1024, ...extra };
}

/** exit.json, as soon as the shim renames it into place (read once first: it may already be there). */
function waitForExit(shimDir: string): Promise<ExitRecord> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const read = readJsonFileSync<ExitRecord>(join(shimDir, EXIT_FILE));
      if (read.kind !== 'ok') return;
      watcher.close();
      resolve(read.value);
    };
    const watcher = watch(shimDir, (_event, name) => {
      if (name === EXIT_FILE) check();
    });
    watcher.on('error', reject);
    check();
  });
}

const isAlive = (pid: number) => identifyProcess(pid) !== undefined;

describe('launchThroughShim', () => {
  it('runs the command detached in its own process group and writes started.json, the CRI log and exit.json', async () => {
    const shimDir = join(dir, 'shim');
    const launched = await launchThroughShim(shim, shimDir, spec('echo out; printf "no-newline" >&2; exit 5', { maxLineBytes: 4 }));
    expect(launched.container.pid).toBeGreaterThan(0);
    expect(launched.shim.pid).not.toBe(process.pid);
    const started = readJsonFileSync<StartedRecord>(join(shimDir, STARTED_FILE));
    expect(started).toMatchObject({ kind: 'ok', value: { pid: launched.container.pid, shimPid: launched.shim.pid } });
    const exit = await waitForExit(shimDir);
    expect(exit).toMatchObject({ exit_code: 5, signal: null });
    expect(BigInt(exit.finished_at)).toBeGreaterThanOrEqual(BigInt(launched.startedAt));
    const log = (await readFile(join(dir, 'logs', 'c', '0.log'), 'utf8')).split('\n').filter(Boolean).map((l) => l.replace(/^\S+ /, ''));
    // "no-newline" is 10 bytes: two P records of the 4-byte cap, then the rest as F at end of stream.
    expect(log.filter((l) => l.startsWith('stdout'))).toEqual(['stdout F out']);
    expect(log.filter((l) => l.startsWith('stderr'))).toEqual(['stderr P no-n', 'stderr P ewli', 'stderr F ne']);
  });

  it('kills what the main process left behind in its group when it exits, like the end of a PID namespace', async () => {
    const shimDir = join(dir, 'shim');
    // A background child that would outlive its parent by far: the test checks that the shim kills it.
    await launchThroughShim(shim, shimDir, spec(`sleep 30 & echo $! > ${join(dir, 'bg.pid')}; exit 0`));
    expect(await waitForExit(shimDir)).toMatchObject({ exit_code: 0 });
    const bg = Number(await readFile(join(dir, 'bg.pid'), 'utf8'));
    // Not our child, so no 'exit' to await: the shim sent the SIGKILL before writing exit.json, and
    // the process is gone once the kernel has acted on it.
    await vi.waitFor(() => expect(isAlive(bg)).toBe(false), { timeout: 2000, interval: 20 });
  });

  it('reports 128 + signal number when a signal ends the container (SIGKILL → 137)', async () => {
    const shimDir = join(dir, 'shim');
    // A process for the test to kill; the 30 s only bound it should the kill fail.
    const launched = await launchThroughShim(shim, shimDir, spec('exec sleep 30'));
    process.kill(-launched.container.pid, 'SIGKILL');
    expect(await waitForExit(shimDir)).toMatchObject({ exit_code: 137, signal: 'SIGKILL' });
  });

  it('fails with KLT_ERR_CRI_FAILED naming the command when it cannot be started, and writes no exit.json', async () => {
    const shimDir = join(dir, 'shim');
    const err = await launchThroughShim(shim, shimDir, spec('', { command: ['no-such-command-klt'] })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    expect((err as Error).message).toContain('no-such-command-klt');
    expect(readJsonFileSync(join(shimDir, EXIT_FILE))).toEqual({ kind: 'absent' });
  });

  it('serves every container of a shims directory from one process, which exits after the last; the next launch starts another', async () => {
    const go = join(dir, 'go');
    // Each polls for the `go` file every 0.05 s (a shell has no file event): both stay running until
    // the test creates it, so the two share one shim.
    const first = await launchThroughShim(shim, join(dir, 'one'), spec(`while [ ! -e ${go} ]; do sleep 0.05; done; echo one; exit 1`));
    const second = await launchThroughShim(shim, join(dir, 'two'), spec(`while [ ! -e ${go} ]; do sleep 0.05; done; echo two; exit 2`)); // polls: a shell has no file event
    expect(second.shim).toEqual(first.shim);
    expect(readJsonFileSync(join(dir, SHIM_FILE))).toEqual({ kind: 'ok', value: { pid: first.shim.pid, startTime: first.shim.startTime } });
    await writeFile(go, '');
    expect(await waitForExit(join(dir, 'one'))).toMatchObject({ exit_code: 1 });
    expect(await waitForExit(join(dir, 'two'))).toMatchObject({ exit_code: 2 });
    await vi.waitFor(() => expect(isAlive(first.shim.pid)).toBe(false), { timeout: 3000, interval: 20 });
    const third = await launchThroughShim(shim, join(dir, 'three'), spec('exit 3'));
    expect(third.shim.pid).not.toBe(first.shim.pid);
    expect(await waitForExit(join(dir, 'three'))).toMatchObject({ exit_code: 3 });
  });

  it('re-opens every container\'s log on SIGUSR2 (ReopenContainerLog after a rotation)', async () => {
    // A word each 0.05 s: each container keeps writing across the rotation the test makes.
    const loop = (word: string) => spec(`trap "exit 0" TERM; while :; do echo ${word}; sleep 0.05; done`, { logPath: join(dir, 'logs', word, '0.log') });
    const a = await launchThroughShim(shim, join(dir, 'a'), loop('a'));
    const b = await launchThroughShim(shim, join(dir, 'b'), loop('b'));
    const logA = join(dir, 'logs', 'a', '0.log');
    const logB = join(dir, 'logs', 'b', '0.log');
    await vi.waitFor(async () => expect(await readFile(logB, 'utf8')).toContain('stdout F b'), { timeout: 3000, interval: 20 });
    await rename(logA, `${logA}.1`);
    process.kill(a.shim.pid, 'SIGUSR2');
    await vi.waitFor(async () => expect(await readFile(logA, 'utf8')).toContain('stdout F a'), { timeout: 3000, interval: 20 });
    for (const c of [a, b]) process.kill(-c.container.pid, 'SIGTERM');
    expect(await waitForExit(join(dir, 'a'))).toMatchObject({ exit_code: 0 });
    expect(await waitForExit(join(dir, 'b'))).toMatchObject({ exit_code: 0 });
  });
});
