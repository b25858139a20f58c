/**
 * The host fakes behave like the real adapters where the supervisor depends on it: the same
 * waiting/cancel semantics for the lock, the same late contention callback, the same outcomes.
 */
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FlockLockFile } from '../../../src/adapters/host/lock-file.js';
import { KubeletError } from '../../../src/domain/errors.js';
import { findFlockWaiters, splitDevice } from '../../../src/domain/node/proc-locks.js';
import type { LockContention, LockFile, LockHandle } from '../../../src/ports/host.js';
import { FakeHost, FakeLockFile, type FakeLockHandle } from '../../fakes/fake-host.js';
import { holdLockElsewhere } from '../../support/flock-holder.js';

interface LockRig {
  lockFile: LockFile;
  /** Make another process hold the lock; returns a function that lets go. */
  holdElsewhere(path: string): Promise<() => void>;
  /** Make another process contend for a lock we hold. */
  contend(path: string, handle: LockHandle): Promise<void>;
  /** Resolves once an acquire that said it waits is really waiting (it can do nothing more until let go). */
  blockedWaiting(path: string): Promise<void>;
}

const realRig = (): LockRig => ({
  lockFile: new FlockLockFile({ pollIntervalMs: 50 }),
  async holdElsewhere(path) {
    const holder = await holdLockElsewhere(path);
    return () => holder.kill('SIGKILL');
  },
  async contend(path) {
    await unlink(path);
  },
  async blockedWaiting(path) {
    // Blocked in flock(2): the kernel lists it under the holder's lock in /proc/locks.
    const st = statSync(path, { bigint: true });
    const file = { ...splitDevice(st.dev), inode: st.ino };
    await vi.waitUntil(() => findFlockWaiters(readFileSync('/proc/locks', 'utf8'), file).length > 0, { timeout: 5000, interval: 20 });
  },
});

const fakeRig = (): LockRig => {
  const lockFile = new FakeLockFile();
  return {
    lockFile,
    async holdElsewhere(path) {
      lockFile.heldElsewhere.add(path);
      return () => lockFile.freeElsewhere(path);
    },
    async contend(_path, handle) {
      (handle as FakeLockHandle).contend({ reason: 'lock-file-removed' });
    },
    // The fake's wait is a promise set up in the same call that says it waits.
    async blockedWaiting() {},
  };
};

describe.each([
  ['FlockLockFile', realRig],
  ['FakeLockFile', fakeRig],
])('%s (LockFile contract)', (_name, makeRig) => {
  let dir: string;
  let path: string;
  let rig: LockRig;
  const cleanups: (() => unknown)[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'klt-lock-contract-'));
    path = join(dir, 'kubelet.lock');
    rig = makeRig();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await rm(dir, { recursive: true, force: true });
  });

  it('waits while another process holds the lock, telling the caller once, then gets it', async () => {
    const letGo = await rig.holdElsewhere(path);
    let waits = 0;
    let told!: () => void;
    const waiting = new Promise<void>((res) => (told = res));
    const pending = rig.lockFile.acquire(path, { exitOnContention: false, onWaiting: () => { waits++; told(); } });
    await waiting;
    await rig.blockedWaiting(path);
    expect(waits).toBe(1);
    letGo();
    const handle = await pending;
    cleanups.push(() => handle.release());
    expect(handle.path).toBe(path);
    // Once over the whole wait, the lock in hand.
    expect(waits).toBe(1);
  });

  it('rejects with KLT_ERR_LOCK_CONTENDED when the wait is aborted', async () => {
    cleanups.push(await rig.holdElsewhere(path));
    const ac = new AbortController();
    const pending = rig.lockFile.acquire(path, { exitOnContention: false, signal: ac.signal });
    // Aborted mid-wait, not at a guessed moment that could come before the wait began.
    await rig.blockedWaiting(path);
    ac.abort();
    await expect(pending).rejects.toBeInstanceOf(KubeletError);
    await expect(pending).rejects.toMatchObject({ code: 'KLT_ERR_LOCK_CONTENDED' });
  });

  it('delivers contention to callbacks registered before and after it happened', async () => {
    const handle = await rig.lockFile.acquire(path, { exitOnContention: true });
    cleanups.push(() => handle.release());
    const early = new Promise<LockContention>((res) => handle.onContention(res));
    await rig.contend(path, handle);
    expect((await early).reason).toBe('lock-file-removed');
    const late = await new Promise<LockContention>((res) => handle.onContention(res));
    expect(late.reason).toBe('lock-file-removed');
  });
});

describe('FakeHost', () => {
  it('records calls and fails once when told to', async () => {
    const host = new FakeHost();
    host.machineInfo.failNext = new KubeletError('KLT_ERR_HOST_IO', 'boom');
    await expect(host.machineInfo.read('/var/lib/kubelet')).rejects.toMatchObject({ code: 'KLT_ERR_HOST_IO' });
    expect((await host.machineInfo.read('/var/lib/kubelet')).rootFilesystem.requestedPath).toBe('/var/lib/kubelet');
    expect(host.machineInfo.calls).toEqual(['/var/lib/kubelet', '/var/lib/kubelet']);
  });

  it('refuses to lower the OOM score without privilege, like the kernel without CAP_SYS_RESOURCE', async () => {
    const host = new FakeHost();
    expect(await host.oomScore.setOwn(-999)).toBe('permission-denied');
    expect(host.oomScore.score).toBe(0);
    host.oomScore.privileged = true;
    expect(await host.oomScore.setOwn(-999)).toBe('set');
    expect(host.oomScore.score).toBe(-999);
    expect(host.oomScore.calls).toEqual([-999, -999]);
  });

  it('answers systemd, hostname and addresses from canned state', async () => {
    const host = new FakeHost();
    host.systemd.outcome = 'sent';
    expect(await host.systemd.notifyReady()).toBe('sent');
    expect(host.hostname.hostname()).toBe('Node-A');
    expect(host.addresses.addresses()).toEqual([{ interfaceName: 'eth0', address: '192.0.2.10', family: 4 }]);
    expect([host.systemd.calls.length, host.hostname.calls, host.addresses.calls]).toEqual([1, 1, 1]);
  });

  it('does not deliver contention without exitOnContention, as the real lock does not watch then', async () => {
    const lockFile = new FakeLockFile();
    const handle = (await lockFile.acquire('/run/kubelet.lock', { exitOnContention: false })) as FakeLockHandle;
    let called = false;
    handle.onContention(() => (called = true));
    handle.contend();
    await Promise.resolve();
    expect(called).toBe(false);
  });
});
