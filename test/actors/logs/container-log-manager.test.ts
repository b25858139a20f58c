import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { SimulatedClock } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { logRotatePolicy, rotateContainerLog, rotateLogs, RotationQueue, startContainerLogManager, type ContainerLogManagerDeps } from '../../../src/actors/logs/container-log-manager.js';
import { createContainerLogFiles } from '../../../src/adapters/fs/container-log-files.js';
import { plantedLogDirectory } from '../../adapters/fs/planted-log-directory.js';
import { LogRuntime } from './log-runtime.js';

const logger = pino({ level: 'silent' });
const MiB = 1024 * 1024;
const T0 = Date.UTC(2026, 10, 26, 3, 0, 0);

function setup(policy: Partial<ContainerLogManagerDeps['policy']> = {}) {
  const rt = new LogRuntime();
  let now = T0;
  const deps: ContainerLogManagerDeps = {
    cri: rt.client(), files: createContainerLogFiles(logger), logger, clock: { now: () => now },
    policy: { maxSizeBytes: MiB, maxFiles: 3, maxWorkers: 1, monitorIntervalMs: 10_000, ...policy },
  };
  const files = () => readdirSync(rt.dir).sort();
  return { rt, deps, files, advance: (ms: number) => (now += ms) };
}

describe('logRotatePolicy', () => {
  it('reads the four configuration fields', () => {
    expect(logRotatePolicy({ containerLogMaxSize: '1Mi', containerLogMaxFiles: 3, containerLogMaxWorkers: 2, containerLogMonitorInterval: '3s' }))
      .toEqual({ maxSizeBytes: MiB, maxFiles: 3, maxWorkers: 2, monitorIntervalMs: 3000 });
  });
});

describe('rotateContainerLog', () => {
  it('leaves a log under the size alone', async () => {
    const { rt, deps, files } = setup();
    rt.add('a', MiB - 1);
    expect(await rotateContainerLog(deps, 'a')).toEqual({ rotated: false, sizeBytes: MiB - 1 });
    expect(files()).toEqual(['a.log']);
    expect(rt.calls).not.toContain('reopenContainerLog a');
  });

  it('renames a log at the size with a UTC timestamp, asks the runtime to reopen it, and keeps the content', async () => {
    const { rt, deps, files } = setup();
    const c = rt.add('a', MiB);
    const r = await rotateContainerLog(deps, 'a');
    expect(r).toMatchObject({ rotated: true, rotatedTo: `${c.log}.20261126-030000` });
    expect(files()).toEqual(['a.log', 'a.log.20261126-030000']);
    expect(statSync(c.log).size).toBe(0);
    expect(statSync(`${c.log}.20261126-030000`).size).toBe(MiB);
    expect(rt.calls).toContain('reopenContainerLog a');
  });

  it('compresses all but the newest rotated file and keeps at most maxFiles with the live one, over many rotations', async () => {
    const { rt, deps, files, advance } = setup({ maxFiles: 3 });
    const c = rt.add('a', 0);
    for (let i = 0; i < 6; i++) {
      writeFileSync(c.log, `rotation ${i}\n`.padEnd(MiB, '.'));
      expect((await rotateContainerLog(deps, 'a'))?.rotated).toBe(true);
      advance(10_000);
    }
    // Rotations 4 (compressed) and 5 (plain) are left, with the live log.
    expect(files()).toEqual(['a.log', 'a.log.20261126-030040.gz', 'a.log.20261126-030050']);
    expect(gunzipSync(readFileSync(`${c.log}.20261126-030040.gz`)).toString().startsWith('rotation 4\n')).toBe(true);
    expect(readFileSync(`${c.log}.20261126-030050`, 'utf8').startsWith('rotation 5\n')).toBe(true);
  });

  it('renames the log back when the runtime cannot reopen it, so the next pass rotates it again', async () => {
    const { rt, deps, files } = setup();
    const c = rt.add('a', MiB);
    rt.reopenFails = true;
    await expect(rotateContainerLog(deps, 'a')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_FAILED' });
    expect(files()).toEqual(['a.log']);
    expect(statSync(c.log).size).toBe(MiB);
  });

  it('asks the runtime to reopen a log that is missing, then looks at the new one', async () => {
    const { rt, deps, files } = setup();
    const c = rt.add('a', 0);
    const { rmSync } = await import('node:fs');
    rmSync(c.log);
    expect(await rotateContainerLog(deps, 'a')).toEqual({ rotated: false, sizeBytes: 0 });
    expect(rt.calls).toContain('reopenContainerLog a');
    expect(files()).toEqual(['a.log']);
  });

  it('removes the leftovers of an interrupted compression', async () => {
    const { rt, deps, files } = setup({ maxFiles: 5 });
    const c = rt.add('a', MiB);
    for (const f of ['20261126-020000', '20261126-020000.gz', '20261126-021000.tmp']) writeFileSync(`${c.log}.${f}`, 'x');
    await rotateContainerLog(deps, 'a');
    expect(files()).toEqual(['a.log', 'a.log.20261126-020000.gz', 'a.log.20261126-030000']);
  });
});

describe('rotation in a log directory a pod planted links in', () => {
  /** Container `a`, its log in a pod log directory laid out as the kubelet lays it out. */
  function planted(policy: Partial<ContainerLogManagerDeps['policy']> = {}) {
    const s = setup(policy);
    const p = plantedLogDirectory();
    s.rt.add('a', 0).log = p.log;
    return { ...s, p };
  }

  it('leaves a rotated file that is a link out: the host file it points at is untouched and none of it enters the pod directory', async () => {
    const { deps, p } = planted({ maxFiles: 3 });
    writeFileSync(p.log, 'x'.repeat(MiB));
    writeFileSync(`${p.log}.20261126-010000`, 'older\n');
    symlinkSync(p.secret, `${p.log}.20261126-020000`);
    expect(await rotateContainerLog(deps, 'a')).toMatchObject({ rotated: true, compressed: [`${p.log}.20261126-010000`] });
    p.expectSecretUntouched();
    p.expectSecretNowhereInPodDirectory();
  });

  it('never rotates a live log that is a link: the pass reports the container failed and the host file stays where it is', async () => {
    const errors: unknown[] = [];
    const { deps, p } = planted({ maxSizeBytes: 1, maxFiles: 2 });
    deps.logger = { ...logger, error: (o: unknown) => void errors.push(o) } as unknown as typeof logger;
    symlinkSync(p.secret, p.log);
    for (let i = 0; i < 3; i++) expect(await rotateLogs(deps)).toEqual({ rotated: [], failed: ['a'] });
    expect(errors).toHaveLength(3);
    expect(readdirSync(p.containerDir)).toEqual(['0.log']);
    p.expectSecretUntouched();
    p.expectSecretNowhereInPodDirectory();
  });
});

describe('rotateLogs', () => {
  it('rotates running containers only, at most maxWorkers at a time', async () => {
    const { rt, deps, files } = setup({ maxWorkers: 2 });
    for (const id of ['a', 'b', 'c', 'd']) rt.add(id, MiB);
    rt.add('exited', MiB, 'CONTAINER_EXITED');
    const r = await rotateLogs(deps);
    expect(r.rotated.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(r.failed).toEqual([]);
    expect(files().filter((f) => f.startsWith('exited'))).toEqual(['exited.log']);
    expect(rt.maxInFlight).toBe(2);
  });

  it('goes on with the other containers when one fails', async () => {
    const { rt, deps } = setup();
    rt.add('a', MiB);
    rt.add('b', 10);
    const { rmSync } = await import('node:fs');
    rmSync(rt.containers.get('a')!.log);
    rt.reopenFails = true;
    const r = await rotateLogs(deps);
    expect(r).toEqual({ rotated: [], failed: ['a'] });
  });
});

describe('startContainerLogManager', () => {
  it('passes every monitor interval on the clock, and not after it is stopped', async () => {
    const { rt, deps, files } = setup({ monitorIntervalMs: 10_000 });
    const clock = new SimulatedClock();
    const c = rt.add('a', MiB);
    const stop = startContainerLogManager({ ...deps, clock });
    // A pass begins with ListContainers in the timer's own turn: none means none started.
    clock.increment(9_999);
    expect(rt.lists).toBe(0);
    expect(files()).toEqual(['a.log']);
    clock.increment(1);
    expect(rt.lists).toBe(1);
    await until(() => files().length === 2);
    stop();
    writeFileSync(c.log, 'x'.repeat(MiB));
    clock.increment(20_000);
    expect(rt.lists).toBe(1);
    expect(files().map((f) => basename(f))).toHaveLength(2);
    expect(existsSync(c.log)).toBe(true);
  });
});

async function until(ok: () => boolean): Promise<void> {
  await vi.waitFor(() => expect(ok()).toBe(true), { timeout: 2_000, interval: 10 });
}

describe('RotationQueue', () => {
  it('does not queue a container again while it waits or is being rotated', async () => {
    const { rt, deps } = setup({ maxWorkers: 1 });
    rt.add('a', MiB);
    rt.add('b', MiB);
    const queue = new RotationQueue(deps);
    await queue.queueRunning();
    await queue.queueRunning();
    await queue.idle();
    expect(rt.calls.filter((c) => c.startsWith('containerStatus')).sort()).toEqual(['containerStatus a', 'containerStatus b']);
  });
});

describe('RotationQueue log paths', () => {
  it('reads a running container\'s log path once, rotates it at later passes, and forgets it once the container is gone', async () => {
    const { rt, deps, files } = setup({ maxWorkers: 1 });
    const a = rt.add('a', 10);
    const queue = new RotationQueue(deps);
    await queue.queueRunning();
    await queue.idle();
    writeFileSync(a.log, 'x'.repeat(MiB));
    await queue.queueRunning();
    await queue.idle();
    // The second pass rotated the log without asking for its status again.
    expect(files().filter((f) => f.startsWith('a.log.'))).toHaveLength(1);
    expect(rt.calls.filter((c) => c.startsWith('containerStatus'))).toEqual(['containerStatus a']);
    // Gone from the running list, then back (the same id): its path is read again.
    a.state = 'CONTAINER_EXITED';
    await queue.queueRunning();
    await queue.idle();
    a.state = 'CONTAINER_RUNNING';
    await queue.queueRunning();
    await queue.idle();
    expect(rt.calls.filter((c) => c.startsWith('containerStatus'))).toEqual(['containerStatus a', 'containerStatus a']);
  });
});
