/**
 * In-memory fakes of the host ports (src/ports/host.ts). Each records its calls, holds canned
 * state, and lets a test inject one failure (`failNext`), like the Go kubelet's fakes.
 */
import { KubeletError } from '../../src/domain/errors.js';
import type {
  HostAddress, HostAddresses, HostnameSource, LockAcquireOptions, LockContention, LockFile, LockHandle, MachineInfo,
  MachineInfoSource, OomScoreOutcome, OomScoreWriter, SdNotifyOutcome, SystemdNotifier,
} from '../../src/ports/host.js';

/** Throws and clears a pending injected failure. */
function takeFailure(holder: { failNext?: KubeletError | undefined }): void {
  const err = holder.failNext;
  if (err) {
    holder.failNext = undefined;
    throw err;
  }
}

export class FakeLockHandle implements LockHandle {
  released = false;
  private readonly callbacks = new Set<(c: LockContention) => void>();
  private seen: LockContention | null = null;

  constructor(readonly path: string, readonly exitOnContention: boolean) {}

  async release(): Promise<void> {
    this.released = true;
  }

  onContention(cb: (c: LockContention) => void): () => void {
    this.callbacks.add(cb);
    const seen = this.seen;
    if (seen) queueMicrotask(() => cb(seen));
    return () => this.callbacks.delete(cb);
  }

  /** Test control: another process contends (delivered only with exitOnContention, as the real one). */
  contend(contention: LockContention = { reason: 'waiter', waiterPid: 4242 }): void {
    if (!this.exitOnContention || this.seen || this.released) return;
    this.seen = contention;
    for (const cb of this.callbacks) cb(contention);
  }
}

export class FakeLockFile implements LockFile {
  readonly calls: { path: string; exitOnContention: boolean }[] = [];
  readonly handles: FakeLockHandle[] = [];
  failNext?: KubeletError | undefined;
  /** Paths held by "another process": acquire waits (onWaiting, then until freed or aborted). */
  readonly heldElsewhere = new Set<string>();
  private readonly waiters = new Map<string, (() => void)[]>();

  async acquire(path: string, opts: LockAcquireOptions): Promise<LockHandle> {
    this.calls.push({ path, exitOnContention: opts.exitOnContention });
    takeFailure(this);
    if (this.heldElsewhere.has(path)) {
      opts.onWaiting?.();
      await new Promise<void>((resolve, reject) => {
        const cancel = () => reject(new KubeletError('KLT_ERR_LOCK_CONTENDED', `gave up waiting for file lock on ${JSON.stringify(path)}`));
        if (opts.signal?.aborted) return cancel();
        opts.signal?.addEventListener('abort', cancel, { once: true });
        this.waiters.set(path, [...(this.waiters.get(path) ?? []), resolve]);
      });
    }
    const handle = new FakeLockHandle(path, opts.exitOnContention);
    this.handles.push(handle);
    return handle;
  }

  /** Test control: the other process lets go of `path`. */
  freeElsewhere(path: string): void {
    this.heldElsewhere.delete(path);
    for (const resolve of this.waiters.get(path) ?? []) resolve();
    this.waiters.delete(path);
  }
}

export const SAMPLE_MACHINE_INFO: MachineInfo = {
  numCores: 4,
  numCoresSource: 'cpuinfo',
  maxPids: 4_194_304,
  memoryCapacityBytes: 8 * 1024 ** 3,
  rootFilesystem: {
    requestedPath: '/var/lib/kubelet',
    statfsPath: '/var/lib/kubelet',
    capacityBytes: 100 * 1024 ** 3,
    availableBytes: 60 * 1024 ** 3,
    inodes: 6_553_600,
    inodesFree: 6_000_000,
  },
  machineId: '0123456789abcdef0123456789abcdef',
  systemUuid: '',
  bootId: '11111111-2222-3333-4444-555555555555',
  kernelVersion: '6.1.0-test',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

export class FakeMachineInfoSource implements MachineInfoSource {
  readonly calls: string[] = [];
  failNext?: KubeletError | undefined;
  constructor(public info: MachineInfo = SAMPLE_MACHINE_INFO) {}

  async read(rootDir: string): Promise<MachineInfo> {
    this.calls.push(rootDir);
    takeFailure(this);
    return { ...this.info, rootFilesystem: { ...this.info.rootFilesystem, requestedPath: rootDir } };
  }
}

export class FakeOomScoreWriter implements OomScoreWriter {
  readonly calls: number[] = [];
  failNext?: KubeletError | undefined;
  /** The current score; writes below `minWithoutPrivilege` are refused unless `privileged`. */
  score = 0;
  privileged = false;
  minWithoutPrivilege = 0;

  async setOwn(score: number): Promise<OomScoreOutcome> {
    this.calls.push(score);
    takeFailure(this);
    if (!this.privileged && score < this.minWithoutPrivilege) return 'permission-denied';
    this.score = score;
    return 'set';
  }
}

export class FakeSystemdNotifier implements SystemdNotifier {
  readonly calls: string[] = [];
  failNext?: KubeletError | undefined;
  constructor(public outcome: SdNotifyOutcome = 'no-socket') {}

  async notifyReady(): Promise<SdNotifyOutcome> {
    this.calls.push('READY=1');
    takeFailure(this);
    return this.outcome;
  }

  async notifyWatchdog(): Promise<SdNotifyOutcome> {
    this.calls.push('WATCHDOG=1');
    takeFailure(this);
    return this.outcome;
  }
}

export class FakeHostname implements HostnameSource {
  calls = 0;
  failNext?: KubeletError | undefined;
  constructor(public name = 'Node-A') {}

  hostname(): string {
    this.calls++;
    takeFailure(this);
    return this.name;
  }
}

export class FakeHostAddresses implements HostAddresses {
  calls = 0;
  failNext?: KubeletError | undefined;
  constructor(public list: HostAddress[] = [{ interfaceName: 'eth0', address: '192.0.2.10', family: 4 }]) {}

  addresses(): HostAddress[] {
    this.calls++;
    takeFailure(this);
    return [...this.list];
  }
}

/** All host fakes together, for wiring a supervisor under test. */
export class FakeHost {
  readonly lockFile = new FakeLockFile();
  readonly machineInfo = new FakeMachineInfoSource();
  readonly oomScore = new FakeOomScoreWriter();
  readonly systemd = new FakeSystemdNotifier();
  readonly hostname = new FakeHostname();
  readonly addresses = new FakeHostAddresses();
}
