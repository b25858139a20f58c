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

/** One container (Go's processContainer and rotateLog): its log rotated when it is big enough. */
export async function rotateContainerLog(deps: ContainerLogManagerDeps, id: string): Promise<RotationResult | null> {
  const { files, policy } = deps;
  const status = (await deps.cri.runtime.containerStatus(id)).status;
  if (!status?.log_path) return null;
  const log = status.log_path;
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

/** One pass over the running containers, `maxWorkers` at a time; a container's failure is logged and the others go on. */
export async function rotateLogs(deps: ContainerLogManagerDeps): Promise<{ rotated: string[]; failed: string[] }> {
  const running = (await deps.cri.runtime.listContainers()).filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.id);
  const rotated: string[] = [];
  const failed: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < running.length) {
      const id = running[next++]!;
      try {
        const r = await rotateContainerLog(deps, id);
        if (r?.rotated) {
          rotated.push(id);
          deps.logger.debug({ containerID: id, ...r }, 'Rotated container log');
        }
      } catch (err) {
        failed.push(id);
        deps.logger.error({ err, containerID: id }, 'Failed to rotate log for container');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.policy.maxWorkers) }, worker));
  return { rotated, failed };
}

/** Starts the periodic passes (Go's Start); answers how to stop them. */
export function startContainerLogManager(deps: ContainerLogManagerDeps & { clock: Clock }): () => void {
  deps.logger.info({ workers: deps.policy.maxWorkers, monitorPeriodMs: deps.policy.monitorIntervalMs }, 'Initializing container log rotate workers');
  return every(deps.clock, deps.policy.monitorIntervalMs, async () => {
    try {
      await rotateLogs(deps);
    } catch (err) {
      deps.logger.error({ err }, 'Failed to rotate container logs');
    }
  });
}
