/**
 * The container log manager (Go's pkg/kubelet/logs containerLogManager): every
 * containerLogMonitorInterval, the logs of running containers are looked at by
 * containerLogMaxWorkers workers; one that reached containerLogMaxSize is rotated as
 * domain/runtime/container-log-rotation.ts plans it, and the runtime is asked to reopen it
 * (ReopenContainerLog). A runtime that cannot reopen gets its log renamed back, so the next pass
 * tries again. Only running containers: a stopped one writes nothing more.
 *
 * Not a machine, like the garbage collectors' loops: it decides nothing any machine reads, so the
 * journal has nothing of it to replay; what it does is logged.
 */
import { parseGoDuration } from '../../domain/config/duration.js';
import type { KubeletConfiguration } from '../../domain/config/types.js';
import { KubeletError } from '../../domain/errors.js';
import { quantityNumber } from '../../domain/resources/quantity.js';
import { planLogRotation } from '../../domain/runtime/container-log-rotation.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { ContainerLogFiles } from '../../ports/container-logs.js';
import type { CriClient } from '../../ports/cri.js';
import { every } from '../every.js';

export interface LogRotatePolicy {
  maxSizeBytes: number;
  maxFiles: number;
  maxWorkers: number;
  monitorIntervalMs: number;
}

/** The policy from the configuration (validated: a positive size, more than one file, a worker, at least 3 s). */
export function logRotatePolicy(c: Pick<KubeletConfiguration, 'containerLogMaxSize' | 'containerLogMaxFiles' | 'containerLogMaxWorkers' | 'containerLogMonitorInterval'>): LogRotatePolicy {
  return {
    maxSizeBytes: Math.floor(quantityNumber(c.containerLogMaxSize) ?? 0),
    maxFiles: c.containerLogMaxFiles,
    maxWorkers: c.containerLogMaxWorkers,
    monitorIntervalMs: parseGoDuration(c.containerLogMonitorInterval),
  };
}

export interface ContainerLogManagerDeps {
  cri: Pick<CriClient, 'runtime'>;
  files: ContainerLogFiles;
  policy: LogRotatePolicy;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
}

export type RotationResult = { rotated: false; sizeBytes: number } | { rotated: true; sizeBytes: number; rotatedTo: string; removed: string[]; compressed: string[] };

async function reopen(deps: ContainerLogManagerDeps, id: string): Promise<void> {
  const { runtime } = deps.cri;
  if (!runtime.reopenContainerLog) throw new KubeletError('KLT_ERR_CRI_UNIMPLEMENTED', 'the runtime cannot reopen a container log');
  await runtime.reopenContainerLog(id);
}

/** A container's log path, from its status (fixed when it was created: the queue remembers it). */
export async function containerLogPath(deps: Pick<ContainerLogManagerDeps, 'cri'>, id: string): Promise<string | null> {
  return (await deps.cri.runtime.containerStatus(id)).status?.log_path || null;
}

/**
 * One container (Go's processContainer and rotateLog): its log rotated when it is big enough.
 * `knownLog`: its log path when already known, else it is read from the container's status.
 */
export async function rotateContainerLog(deps: ContainerLogManagerDeps, id: string, knownLog?: string): Promise<RotationResult | null> {
  const { files, policy } = deps;
  const log = knownLog ?? await containerLogPath(deps, id);
  if (!log) return null;
  let size = await files.size(log);
  if (size === null) {
    // Gone (a rotation whose reopen never happened, say): the runtime makes it again.
    await reopen(deps, id);
    size = await files.size(log);
    if (size === null) throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${id}: log ${log} still missing after reopening it`);
  }
  if (size < policy.maxSizeBytes) return { rotated: false, sizeBytes: size };

  const plan = planLogRotation(log, await files.siblings(log), policy.maxFiles, deps.clock.now());
  for (const f of plan.remove) await files.remove(f);
  for (const f of plan.compress) await files.compress(f);
  await files.rename(log, plan.rotateTo);
  try {
    await reopen(deps, id);
  } catch (err) {
    // Renamed back so that the next pass rotates it again; failing that, the live log is lost.
    await files.rename(plan.rotateTo, log).catch((renameErr: unknown) =>
      deps.logger.error({ err: renameErr, rotatedLog: plan.rotateTo, newLog: log, containerID: id }, 'Failed to rename rotated log'));
    throw err;
  }
  return { rotated: true, sizeBytes: size, rotatedTo: plan.rotateTo, removed: plan.remove, compressed: plan.compress };
}

/**
 * Go's work queue and its workers: a container is looked at by one of `maxWorkers` workers, and is
 * not queued again while it waits or is being rotated. The periodic pass only queues, so a slow
 * rotation (a big file to compress) does not push the next pass back.
 *
 * Each running container's log path is remembered from its first status (a container's log path is
 * set when it is created and never changes): Go asks ContainerStatus for every running container at
 * every pass, which on a quiet node is most of its CRI calls besides the relist.
 */
export class RotationQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private logPaths = new Map<string, string>();
  private busy = 0;
  private idleWaiters: (() => void)[] = [];

  /** `outcome`, when given, collects which containers rotated and which failed (one pass's). */
  constructor(private readonly deps: ContainerLogManagerDeps, private readonly outcome?: { rotated: string[]; failed: string[] }) {}

  /** Go's rotateLogs: every running container queued. */
  async queueRunning(): Promise<void> {
    const running = (await this.deps.cri.runtime.listContainers()).filter((c) => c.state === 'CONTAINER_RUNNING');
    // Only the running containers' paths are kept: a container gone is forgotten at the next pass.
    const kept = new Map<string, string>();
    for (const c of running) {
      const log = this.logPaths.get(c.id);
      if (log !== undefined) kept.set(c.id, log);
    }
    this.logPaths = kept;
    for (const c of running) this.add(c.id);
  }

  add(id: string): void {
    if (this.queued.has(id)) return;
    this.queued.add(id);
    this.waiting.push(id);
    this.pump();
  }

  /** Resolves once nothing waits and no worker works. */
  idle(): Promise<void> {
    if (this.busy === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.busy < Math.max(1, this.deps.policy.maxWorkers) && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      this.busy += 1;
      void this.process(id).finally(() => {
        this.busy -= 1;
        this.queued.delete(id);
        this.pump();
        if (this.busy === 0 && this.waiting.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  /** Go's processContainer: a container's failure is logged, the others go on. */
  private async process(id: string): Promise<void> {
    try {
      let log = this.logPaths.get(id);
      if (log === undefined) {
        const read = await containerLogPath(this.deps, id);
        if (read === null) return;
        this.logPaths.set(id, (log = read));
      }
      const r = await rotateContainerLog(this.deps, id, log);
      if (r?.rotated) {
        this.outcome?.rotated.push(id);
        this.deps.logger.debug({ containerID: id, ...r }, 'Rotated container log');
      }
    } catch (err) {
      this.outcome?.failed.push(id);
      this.deps.logger.error({ err, containerID: id }, 'Failed to rotate log for container');
    }
  }
}

/** One pass over the running containers, to its end: what rotated and what failed. */
export async function rotateLogs(deps: ContainerLogManagerDeps): Promise<{ rotated: string[]; failed: string[] }> {
  const outcome = { rotated: [] as string[], failed: [] as string[] };
  const queue = new RotationQueue(deps, outcome);
  await queue.queueRunning();
  await queue.idle();
  return outcome;
}

/** Starts the periodic passes and the workers (Go's Start); answers how to stop them. */
export function startContainerLogManager(deps: ContainerLogManagerDeps & { clock: Clock }): () => void {
  deps.logger.info({ workers: deps.policy.maxWorkers, monitorPeriodMs: deps.policy.monitorIntervalMs }, 'Initializing container log rotate workers');
  const queue = new RotationQueue(deps);
  return every(deps.clock, deps.policy.monitorIntervalMs, async () => {
    try {
      await queue.queueRunning();
    } catch (err) {
      deps.logger.error({ err }, 'Failed to rotate container logs');
    }
  });
}
