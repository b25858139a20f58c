/**
 * The pod side of cluster mode wired in process, as the supervisor wires it: the apiserver pod
 * source's pods (and any static pods) are the pods the status manager knows; its mirror pods go to
 * the status manager too. For the suites that drive it against an API server (api-pods*.test.ts).
 */
import { pino } from 'pino';
import { vi } from 'vitest';
import { createActor } from 'xstate';
import { runApiPodSource, type ApiPodSourceEvent } from '../../src/actors/api-pods/api-pod-source.js';
import { createStatusManagerActors, type StatusManagerActorDeps } from '../../src/actors/api-pods/status-manager-actors.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Pod, PodStatus } from '../../src/domain/pod/types.js';
import { statusManagerMachine } from '../../src/machines/status-manager.machine.js';
import type { ApiClients } from '../../src/ports/apiserver.js';

const logger = pino({ level: 'silent' });

export interface PodSideOptions {
  staticPods?: Pod[];
  nodeUid?: string;
  syncPeriodMs?: number;
  /** The status manager's pod API, when a test watches its calls (default: the main client). */
  pods?: StatusManagerActorDeps['pods'];
}

/** The status manager alone, started; `stops` gets its stop. */
export function startStatusManager(api: ApiClients, nodeName: string, opts: PodSideOptions, stops: (() => void)[]) {
  const manager = createActor(statusManagerMachine.provide({ actors: createStatusManagerActors({ pods: opts.pods ?? api.main, logger }) }), {
    input: { nodeName, ...(opts.nodeUid ? { nodeUid: opts.nodeUid } : {}), ...(opts.syncPeriodMs ? { syncPeriodMs: opts.syncPeriodMs } : {}) },
  }).start();
  stops.push(() => manager.stop());
  return manager;
}

/** The source and the status manager, started and wired; `stops` gets what stops them. */
export function wirePodSide(api: ApiClients, nodeName: string, opts: PodSideOptions, stops: (() => void)[]) {
  const events: ApiPodSourceEvent[] = [];
  const manager = startStatusManager(api, nodeName, opts, stops);
  const stopSource = runApiPodSource({
    nodeName, listPods: (o) => api.main.listPods(o), watchPods: (o) => api.main.watchPods(o), clock: systemClock, logger,
    sendBack: (event) => {
      events.push(event);
      if (event.type === 'pod.source.snapshot') manager.send({ type: 'status.pods.known', pods: [...event.pods, ...(opts.staticPods ?? [])] });
      else manager.send(event);
    },
  });
  stops.push(stopSource);
  const lastPods = () => events.filter((e) => e.type === 'pod.source.snapshot').at(-1)?.pods ?? [];
  return { events, manager, lastPods };
}

/** Polls `probe` until it gives something (not undefined or false). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
  const found = await vi.waitUntil(async () => (await probe()) ?? false, { timeout: timeoutMs, interval: 20 })
    .catch(() => { throw new Error(`timed out waiting for ${what}`); });
  return found as T;
}

/** The status of a pod whose one container `c` runs and is ready. */
export const runningStatus = (): PodStatus => ({
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'busybox:1.36', imageID: '', containerID: 'embedded://1', started: true, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }],
});
