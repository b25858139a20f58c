/**
 * run.preInitRuntime: connect the CRI runtime and image services and ask for the runtime's
 * Version. An absent runtime does not crash start-up: the phase waits, retrying with back-off
 * (1 s doubling to 10 s), and tells the supervisor what it waits on. `embedded` starts the
 * project's own CRI runtime in-process on a private socket under --root-dir; it runs containers as
 * unconfined host processes, so it refuses cluster mode unless --embedded-runtime-allow-cluster;
 * its port forwards never reach the kubelet's own ports.
 */
import { KubeletError, serializeError } from '../../domain/errors.js';
import { parseGoDuration } from '../../domain/config/duration.js';
import { kubeletReservedPorts } from '../../domain/runtime/reserved-ports.js';
import type { Clock } from '../../ports/clock.js';
import type { PhaseDeps } from './deps.js';
import { phaseActor } from './phase-actor.js';
import { settings } from './settings.js';
import { decideCgroupDriver } from '../../domain/runtime/cgroup-driver-agreement.js';
import type { CgroupDriver } from '../../domain/node/cgroup-roots.js';
import { askRuntimeCgroupDriver } from '../runtime/runtime-cgroup-driver.js';

export const EMBEDDED_ENDPOINT = 'embedded';

export function runtimePhase(deps: PhaseDeps) {
  const { live } = deps;
  return phaseActor(async ({ signal, waiting }) => {
    let endpoint = settings.runtimeEndpoint(live);
    const embedded = endpoint === EMBEDDED_ENDPOINT;
    if (embedded) {
      if (settings.kubeconfig(live) !== '' && !settings.embeddedRuntimeAllowCluster(live)) {
        throw new KubeletError('KLT_ERR_CONFIG_INVALID',
          'the embedded runtime runs containers as unconfined host processes, so it does not serve pods from an API server; ' +
          'use a real runtime (containerd), or pass --embedded-runtime-allow-cluster for a test cluster');
      }
      const runtime = await deps.runtime.startEmbedded(settings.rootDir(live), kubeletReservedPorts(settings.config(live), settings.debugAddress(live)));
      deps.lifetimes.add('embeddedRuntime', runtime.close);
      endpoint = runtime.endpoint;
    }
    const imageEndpoint = settings.imageEndpoint(live);
    const cri = await deps.runtime.connect({
      endpoint,
      ...(imageEndpoint ? { imageEndpoint } : {}),
      runtimeRequestTimeoutMs: parseGoDuration(settings.runtimeRequestTimeout(live)),
    });
    deps.lifetimes.add('criClient', () => cri.close());
    live.cri.set(deps.build.containerLogLinks(cri));

    for (let attempt = 0, backoffMs = 1000; ; attempt++, backoffMs = Math.min(backoffMs * 2, 10_000)) {
      try {
        const version = await cri.runtime.version({ timeoutMs: 2000 });
        return { endpoint: embedded ? EMBEDDED_ENDPOINT : endpoint, attempts: attempt + 1, ...version };
      } catch (err) {
        const e = serializeError(err);
        if (e.code !== 'KLT_ERR_CRI_UNAVAILABLE' && e.code !== 'KLT_ERR_CRI_DEADLINE') throw err;
        waiting(`container runtime at ${endpoint} is not answering (${e.message}); retrying in ${backoffMs / 1000}s`);
        if (attempt === 0) deps.logger.warn({ endpoint, err: e }, 'Container runtime not ready, waiting');
        await sleepOnClock(deps.clock, backoffMs, signal);
      }
    }
  });
}

/**
 * run.cgroupDriverFromCRI: ask the connected runtime once for its cgroup driver (CRI RuntimeConfig),
 * before the container manager makes any cgroup, and hold it against cgroupDriver
 * (cgroup-driver-agreement.ts).
 */
export function cgroupDriverPhase(deps: PhaseDeps) {
  const { live } = deps;
  return phaseActor(async ({ signal }) => {
    const configured = settings.config(live).cgroupDriver as CgroupDriver;
    const answer = await askRuntimeCgroupDriver(live.cri.require().runtime, (ms) => sleepOnClock(deps.clock, ms, signal));
    if (answer === 'unimplemented') {
      deps.logger.info('CRI implementation should be updated to support RuntimeConfig when KubeletCgroupDriverFromCRI feature gate has been enabled. Falling back to using cgroupDriver from kubelet config.');
    }
    const decision = decideCgroupDriver(configured, answer);
    if (decision instanceof Error) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `invalid configuration: ${decision.message}`);
    if (decision.from === 'runtime') deps.logger.info({ cgroupDriver: decision.cgroupDriver }, 'Using cgroup driver setting received from the CRI runtime');
    return decision;
  });
}

/** Waits on the injected clock; an abort (a stop mid-phase) cancels the timer and rejects. */
function sleepOnClock(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = clock.setTimeout(() => resolve(), ms);
    signal.addEventListener('abort', () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
