import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FlockLockFile } from '../../../src/adapters/host/lock-file.js';
import type { LockContention } from '../../../src/domain/node/host-types.js';
import type { LockHandle } from '../../../src/ports/host.js';
import { holdLockElsewhere } from '../../support/flock-holder.js';
import { LineChild, transpileInto } from './child-process-harness.js';

/** Can some other process take the lock right now? (flock(1) without waiting: 0 = it could.) */
function otherProcessCanLock(path: string): boolean {
  return spawnSync('flock', ['--nonblock', path, 'true']).status === 0;
}

const RUNNER = `
import { FlockLockFile } from './src/adapters/host/lock-file.js';
const [path, mode] = process.argv.slice(2);
// The test's ordering barrier: anything printed before this answer reached the test before it.
process.on('SIGUSR2', () => console.log('pong'));
const handle = await new FlockLockFile({ pollIntervalMs: 50 }).acquire(path, {
  exitOnContention: mode === 'exit-on-contention',
  onWaiting: () => console.log('waiting'),
});
console.log('locked');
handle.onContention((c) => { console.log('contention ' + JSON.stringify(c)); process.exit(0); });
// Keeps the holder alive until it is killed or contended: nothing waits on this timer.
setInterval(() => {}, 1000);
`;

/** Kills the holder and waits for its exit: the kernel drops its lock as it exits, before that is reported. */
async function killAndReap(holder: ChildProcess): Promise<void> {
  const exited = once(holder, 'exit');
  holder.kill('SIGKILL');
  await exited;
}

describe('FlockLockFile', () => {
  let buildDir: string;
  let dir: string;
  let lockPath: string;
  const children: LineChild[] = [];
  const handles: LockHandle[] = [];

  beforeAll(async () => {
    buildDir = await mkdtemp(join(tmpdir(), 'klt-lock-build-'));
    await transpileInto(buildDir, ['src/adapters/host/lock-file.ts', 'src/domain/errors.ts', 'src/domain/node/proc-locks.ts']);
    await writeFile(join(buildDir, 'runner.js'), RUNNER);
  });
  afterAll(async () => {
    await rm(buildDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill();
    for (const h of handles.splice(0)) await h.release();
    await rm(dir, { recursive: true, force: true });
  });

  const fresh = async () => {
    dir = await mkdtemp(join(tmpdir(), 'klt-lock-'));
    lockPath = join(dir, 'kubelet.lock');
  };
  const runner = (mode: 'wait' | 'exit-on-contention') => {
    const child = LineChild.start(process.execPath, [join(buildDir, 'runner.js'), lockPath, mode], buildDir);
    children.push(child);
    return child;
  };
  const acquire = async (exitOnContention: boolean, extra: Partial<Parameters<FlockLockFile['acquire']>[1]> = {}) => {
    const handle = await new FlockLockFile({ pollIntervalMs: 50 }).acquire(lockPath, { exitOnContention, ...extra });
    handles.push(handle);
    return handle;
  };

  it('holds an exclusive lock that another process cannot take until it is released', async () => {
    await fresh();
    const handle = await acquire(false);
    expect(otherProcessCanLock(lockPath)).toBe(false);
    await handle.release();
    expect(otherProcessCanLock(lockPath)).toBe(true);
  });

  it('keeps a second kubelet-ts process waiting while the first holds the lock, and signals contention to the first', async () => {
    await fresh();
    const first = await acquire(true);
    const contention = new Promise<LockContention>((res) => first.onContention(res));
    const second = runner('wait');
    await second.waitFor('waiting');
    const seen = await contention;
    expect(seen.reason).toBe('waiter');
    // The second process must not have the lock while the first holds it: it has not said so by the
    // time it answers a ping sent after the first saw it blocked in flock(2).
    second.proc.kill('SIGUSR2');
    await second.waitFor('pong');
    expect(second.lines.slice(0, second.lines.indexOf('pong'))).not.toContain('locked');
    await first.release();
    await second.waitFor('locked');
  });

  it('exits the holding process on contention when it runs with exit-on-contention (Go-style contender: flock(1))', async () => {
    await fresh();
    const holder = runner('exit-on-contention');
    await holder.waitFor('locked');
    // A second kubelet (Go blocks in flock(2) exactly like this) asks for the lock.
    const contender = spawn('flock', [lockPath, 'true']);
    // Listened for from the start: once the holder exits, the contender can finish before this test
    // resumes, and an 'exit' emitted with no listener yet would be lost (a 20 s hang under load).
    const contenderExited = new Promise<number | null>((res) => contender.on('exit', res));
    const line = await holder.waitFor('contention ');
    expect(JSON.parse(line.slice('contention '.length))).toMatchObject({ reason: 'waiter' });
    expect(await holder.exited).toBe(0);
    // The holder's exit freed the lock, so the contender got it and finished.
    expect(await contenderExited).toBe(0);
  });

  it('leaves no stale lock when the holding process is killed', async () => {
    await fresh();
    const holder = runner('wait');
    await holder.waitFor('locked');
    let waiting!: () => void;
    const waited = new Promise<void>((res) => (waiting = res));
    const mine = acquire(false, { onWaiting: () => waiting() });
    await waited;
    holder.kill();
    const handle = await mine;
    expect(otherProcessCanLock(lockPath)).toBe(false);
    await handle.release();
  });

  it('rejects with KLT_ERR_LOCK_CONTENDED when waiting is cancelled, and keeps nothing locked', async () => {
    await fresh();
    const holder = await holdLockElsewhere(lockPath);
    const ac = new AbortController();
    const attempt = new FlockLockFile().acquire(lockPath, { exitOnContention: false, signal: ac.signal, onWaiting: () => ac.abort() });
    await expect(attempt).rejects.toMatchObject({ code: 'KLT_ERR_LOCK_CONTENDED' });
    await killAndReap(holder);
    expect(otherProcessCanLock(lockPath)).toBe(true);
  });

  it('logs that it waits, naming the lock file, when another process holds it (#14)', async () => {
    await fresh();
    const holder = await holdLockElsewhere(lockPath);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({}, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const ac = new AbortController();
    const attempt = new FlockLockFile({ logger }).acquire(lockPath, { exitOnContention: false, signal: ac.signal, onWaiting: () => ac.abort() });
    await expect(attempt).rejects.toMatchObject({ code: 'KLT_ERR_LOCK_CONTENDED' });
    expect(lines).toEqual([expect.objectContaining({ path: lockPath, msg: 'Waiting for the lock file: another process holds it' })]);
    await killAndReap(holder);
    expect(otherProcessCanLock(lockPath)).toBe(true);
  });

  it('signals contention when the lock file is removed', async () => {
    await fresh();
    const handle = await acquire(true);
    const contention = new Promise<LockContention>((res) => handle.onContention(res));
    await unlink(lockPath);
    expect(await contention).toEqual({ reason: 'lock-file-removed' });
  });

  it('calls a contention callback registered after contention was seen', async () => {
    await fresh();
    const handle = await acquire(true);
    const first = new Promise<LockContention>((res) => handle.onContention(res));
    await unlink(lockPath);
    await first;
    const late = await new Promise<LockContention>((res) => handle.onContention(res));
    expect(late.reason).toBe('lock-file-removed');
  });

  it('fails with KLT_ERR_LOCK_IO naming the path when the directory does not exist', async () => {
    await fresh();
    const missing = join(dir, 'no-such-dir', 'kubelet.lock');
    await expect(new FlockLockFile().acquire(missing, { exitOnContention: false })).rejects.toMatchObject({
      code: 'KLT_ERR_LOCK_IO',
      message: expect.stringContaining(missing),
    });
  });

  it('fails with KLT_ERR_LOCK_IO when flock(1) is not installed', async () => {
    await fresh();
    const lf = new FlockLockFile({ flockCommand: join(dir, 'no-flock-here') });
    await expect(lf.acquire(lockPath, { exitOnContention: false })).rejects.toMatchObject({ code: 'KLT_ERR_LOCK_IO' });
    expect(otherProcessCanLock(lockPath)).toBe(true);
  });

  it('fails with KLT_ERR_LOCK_IO when contention cannot be watched (no /proc/locks)', async () => {
    await fresh();
    const lf = new FlockLockFile({ procLocksPath: join(dir, 'no-proc-locks') });
    await expect(lf.acquire(lockPath, { exitOnContention: true })).rejects.toMatchObject({ code: 'KLT_ERR_LOCK_IO' });
    // The lock taken before the watch failed was dropped again.
    expect(otherProcessCanLock(lockPath)).toBe(true);
  });
});
