/**
 * healthz's checks (the healthz server, the kubelet server's /healthz): ping, log, and the
 * syncloop check. The Go kubelet fails syncloop when the loop has not run for
 * max(2 × syncFrequency, 5 m), and passes it before the loop was first entered (a zero entry
 * time), so healthz answers `ok` while start-up is still on its way, as soon as it listens. Our
 * syncLoop has no idle tick; the PLEG's relist is its heartbeat. A syncLoop that was started and
 * is no longer running (stopping) fails it.
 */
import type { ActorDirectory } from '../actors/debug/actor-directory.js';
import type { HealthCheck } from '../adapters/http/healthz.js';
import { parseGoDuration } from '../domain/config/duration.js';
import type { KubeletConfiguration } from '../domain/config/types.js';
import type { Clock } from '../ports/clock.js';
import type { SystemViews } from './system-views.js';

export function createHealthChecks(directory: ActorDirectory, views: SystemViews, config: () => KubeletConfiguration | undefined, clock: Clock): HealthCheck[] {
  return [
    { name: 'ping', check: () => null },
    { name: 'log', check: () => null },
    { name: 'syncloop', check: () => syncLoopProblem(syncLoopState(directory.find('syncLoop')?.status), views.pleg()?.lastRelistAtMs, config(), clock.now()) },
  ];
}

const syncLoopState = (status: string | undefined) => (status === undefined ? 'notStarted' : status === 'active' ? 'running' : 'stopped');

export function syncLoopProblem(
  state: 'notStarted' | 'running' | 'stopped',
  lastRelistAtMs: number | null | undefined,
  config: KubeletConfiguration | undefined,
  nowMs: number,
): string | null {
  if (state === 'stopped') return 'the syncLoop is not running';
  if (lastRelistAtMs === undefined || lastRelistAtMs === null) return null;
  const syncMs = config ? parseGoDuration(config.syncFrequency) : 60_000;
  const limitMs = Math.max(2 * syncMs, 5 * 60_000);
  return nowMs - lastRelistAtMs > limitMs ? `syncLoop was last active ${Math.round((nowMs - lastRelistAtMs) / 1000)}s ago; threshold is ${limitMs / 1000}s` : null;
}
