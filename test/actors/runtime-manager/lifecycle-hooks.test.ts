import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntimeManager } from '../../../src/actors/runtime-manager/runtime-manager.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { Clock } from '../../../src/ports/clock.js';
import { FakeCri } from '../../fakes/fake-cri.js';

/** A clock whose timers fire only when the test advances it. */
class ManualClock implements Clock {
  private ms = 5_000_000;
  private timers: { at: number; fn: () => void }[] = [];
  now(): number { return this.ms; }
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown {
    const timer = { at: this.ms + ms, fn: () => fn() };
    this.timers.push(timer);
    return timer;
  }
  clearTimeout(id: unknown): void { this.timers = this.timers.filter((t) => t !== id); }
  get pending(): number { return this.timers.length; }
  advance(ms: number): void {
    this.ms += ms;
    const due = this.timers.filter((t) => t.at <= this.ms);
    this.timers = this.timers.filter((t) => t.at > this.ms);
    for (const t of due) t.fn();
  }
}

/** Waits for the hook to arm its timer on the fake clock (it does so after real I/O). */
async function until(condition: () => boolean): Promise<void> {
  await expect.poll(condition, { interval: 1 }).toBe(true);
}

let logsDir: string;
let clock: ManualClock;
let cri: FakeCri;
let manager: RuntimeManager;

beforeEach(async () => {
  logsDir = await mkdtemp(join(tmpdir(), 'klt-hooks-'));
  clock = new ManualClock();
  cri = new FakeCri({ clock });
  cri.addImage('busybox:1.36');
  manager = createRuntimeManager({ cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(), node: { resolvConf: '', memoryCapacityBytes: 1 << 30 } });
});

afterEach(async () => {
  await rm(logsDir, { recursive: true, force: true });
});

function podWith(container: Container, terminationGracePeriodSeconds = 30): Pod {
  return { metadata: { name: 'web', namespace: 'ns', uid: 'u1' }, spec: { containers: [container], terminationGracePeriodSeconds } };
}

const hookCalls = () => cri.calls.filter((c) => /^(startContainer|execSync|stopContainer)/.test(c));

describe('postStart', () => {
  it('runs an exec hook right after the container starts', async () => {
    const result = await manager.syncPod(podWith({ name: 'app', image: 'busybox:1.36', lifecycle: { postStart: { exec: { command: ['touch', '/ready'] } } } }));
    expect(result.ok).toBe(true);
    expect(hookCalls()).toEqual(['startContainer app', 'execSync app']);
  });

  it('kills the container and reports PostStartHookError when the hook fails', async () => {
    cri.execExitCode = 1;
    const result = await manager.syncPod(podWith({ name: 'app', image: 'busybox:1.36', lifecycle: { postStart: { exec: { command: ['register', '--token=s3cret'] } } } }));
    expect(result.steps.at(-1)).toMatchObject({ step: 'startContainer', ok: false, reason: 'PostStartHookError', error: { code: 'KLT_ERR_CONTAINER_HOOK' } });
    // The command line may hold a secret: it stays out of the result (and so out of the journal).
    expect(JSON.stringify(result)).not.toContain('s3cret');
    expect(hookCalls()).toEqual(['startContainer app', 'execSync app', 'stopContainer app']);
    expect(cri.latestContainer('app')?.state).toBe('CONTAINER_EXITED');
  });

  it('sends an httpGet hook to the named port with the given path and headers', async () => {
    const seen: { url?: string; headers?: IncomingHttpHeaders } = {};
    const server = createServer((req, res) => {
      seen.url = req.url;
      seen.headers = req.headers;
      res.statusCode = 500; // any answer counts as success, as in Go
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const container: Container = {
        name: 'app', image: 'busybox:1.36', ports: [{ name: 'admin', containerPort: port }],
        lifecycle: { postStart: { httpGet: { host: '127.0.0.1', port: 'admin', path: 'warm', httpHeaders: [{ name: 'X-Hook', value: 'post' }] } } },
      };
      const result = await manager.syncPod(podWith(container));
      expect(result.ok).toBe(true);
      expect(seen.url).toBe('/warm');
      expect(seen.headers?.['x-hook']).toBe('post');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('fails an httpGet hook that cannot connect', async () => {
    const container: Container = { name: 'app', image: 'busybox:1.36', lifecycle: { postStart: { httpGet: { host: '127.0.0.1', port: 1 } } } };
    const result = await manager.syncPod(podWith(container));
    expect(result.steps.at(-1)).toMatchObject({ ok: false, reason: 'PostStartHookError' });
  });

  it('fails an httpGet hook without a host in a host-network pod, as Go asks the runtime, which reports no IP for it', async () => {
    const onNode = createRuntimeManager({ cri, clock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(), node: { resolvConf: '', memoryCapacityBytes: 1 << 30, hostIPs: ['127.0.0.1'] } });
    const container: Container = { name: 'app', image: 'busybox:1.36', lifecycle: { postStart: { httpGet: { port: 8080 } } } };
    const pod = podWith(container);
    const result = await onNode.syncPod({ ...pod, spec: { ...pod.spec, hostNetwork: true } });
    expect(result.steps.at(-1)).toMatchObject({ ok: false, reason: 'PostStartHookError', error: { message: 'failed to find networking container: the pod has no IP' } });
  });
});

describe('preStop', () => {
  it('runs before StopContainer and its time comes off the grace period', async () => {
    const pod = podWith({ name: 'app', image: 'busybox:1.36', lifecycle: { preStop: { sleep: { seconds: 5 } } } });
    await manager.syncPod(pod);
    const killing = manager.killPod(pod);
    await until(() => clock.pending > 0);
    expect(cri.calls.some((c) => c.startsWith('stopContainer'))).toBe(false);
    clock.advance(5000);
    expect((await killing).ok).toBe(true);
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(25);
  });

  it('is cut off at the grace period, leaving the 2 s minimum for the stop', async () => {
    const pod = podWith({ name: 'app', image: 'busybox:1.36', lifecycle: { preStop: { sleep: { seconds: 40 } } } }, 30);
    await manager.syncPod(pod);
    const killing = manager.killPod(pod);
    await until(() => clock.pending > 0);
    clock.advance(30_000);
    await killing;
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(2);
  });

  it('still stops the container when the hook fails', async () => {
    const pod = podWith({ name: 'app', image: 'busybox:1.36', lifecycle: { preStop: { exec: { command: ['nginx', '-s', 'quit'] } } } });
    await manager.syncPod(pod);
    cri.failNext('execSync');
    const result = await manager.killPod(pod);
    expect(result.ok).toBe(true);
    expect(hookCalls().slice(-2)).toEqual(['execSync app', 'stopContainer app']);
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(30);
  });
});

describe('sidecar termination order', () => {
  const proxyA: Container = { name: 'proxy-a', image: 'busybox:1.36', restartPolicy: 'Always' };
  const proxyB: Container = { name: 'proxy-b', image: 'busybox:1.36', restartPolicy: 'Always' };

  async function startPod(app: Container): Promise<Pod> {
    const pod: Pod = { metadata: { name: 'web', namespace: 'ns', uid: 'u1' }, spec: { initContainers: [proxyA, proxyB], containers: [app], terminationGracePeriodSeconds: 30 } };
    for (let i = 0; i < 3; i++) await manager.syncPod(pod);
    expect(cri.latestContainer('app')?.state).toBe('CONTAINER_RUNNING');
    cri.calls.length = 0;
    return pod;
  }

  it('stops the regular containers first, then the sidecars from last to first', async () => {
    const pod = await startPod({ name: 'app', image: 'busybox:1.36' });
    const result = await manager.killPod(pod);
    expect(result.ok).toBe(true);
    expect(cri.calls.filter((c) => c.startsWith('stop'))).toEqual(['stopContainer app', 'stopContainer proxy-b', 'stopContainer proxy-a', 'stopPodSandbox web']);
  });

  it('takes the time a sidecar waited off its grace period', async () => {
    const pod = await startPod({ name: 'app', image: 'busybox:1.36', lifecycle: { preStop: { sleep: { seconds: 10 } } } });
    const killing = manager.killPod(pod);
    await until(() => clock.pending > 0);
    clock.advance(10_000);
    await killing;
    expect(cri.latestContainer('app')?.stopTimeoutSeconds).toBe(20);
    expect(cri.latestContainer('proxy-b')?.stopTimeoutSeconds).toBe(20);
    expect(cri.latestContainer('proxy-a')?.stopTimeoutSeconds).toBe(20);
  });
});
