/**
 * Lifecycle hook handlers (pkg/kubelet/lifecycle handlers.go handlerRunner.Run): exec runs the
 * command in the container through ExecSync (a non-zero exit is a failure), httpGet sends a GET to
 * the pod through the HttpGet port (any HTTP answer is a success, only a transport error fails, as
 * in Go), sleep waits on the injected clock. tcpSocket is not a valid lifecycle handler (Go rejects
 * it the same way).
 */
import { KubeletError } from '../../domain/errors.js';
import type { Container, LifecycleHandler, Pod } from '../../domain/pod/types.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { CriClient } from '../../ports/cri.js';
import type { HttpGet } from '../../ports/http-get.js';
import type { EventRequest } from '../../domain/status-manager/event-aggregation.js';

export interface HookDeps {
  cri: CriClient;
  clock: Clock;
  log: Logger;
  httpGet: HttpGet;
  /** Records an event about the pod or a container (undefined: nothing to record); without it, none are. */
  recordEvent?: (event: EventRequest | undefined) => void;
}

function hookError(message: string, cause?: unknown): KubeletError {
  return new KubeletError('KLT_ERR_CONTAINER_HOOK', message, cause === undefined ? {} : { cause });
}

/** A port given by name is looked up among the container's ports. */
function resolvePort(port: number | string, container: Container): number {
  if (typeof port === 'number') return port;
  const named = container.ports?.find((p) => p.name === port);
  if (named) return named.containerPort;
  const numeric = Number(port);
  if (Number.isInteger(numeric) && numeric > 0) return numeric;
  throw hookError(`couldn't find port: ${port} in ${container.name}`);
}

export function sleepOnClock(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    clock.setTimeout(() => resolve(), ms);
  });
}

/** Runs one handler to completion; rejects with KLT_ERR_CONTAINER_HOOK when it fails. */
export async function runLifecycleHandler(deps: HookDeps, pod: Pod, container: Container, containerId: string, handler: LifecycleHandler, podIPs: string[]): Promise<void> {
  if (handler.exec) {
    // Messages name the container, never the command or its output: they end up in results and the
    // journal, and a command line may carry a secret (Go keeps them out of events for the same reason).
    let result;
    try {
      result = await deps.cri.runtime.execSync(containerId, handler.exec.command ?? [], 0);
    } catch (err) {
      throw hookError(`Exec lifecycle hook for Container "${container.name}" in Pod "${pod.metadata.name}" failed`, err);
    }
    if (result.exit_code !== 0) {
      throw hookError(`Exec lifecycle hook for Container "${container.name}" in Pod "${pod.metadata.name}" failed - exit code ${result.exit_code}`);
    }
    return;
  }
  if (handler.httpGet) {
    const get = handler.httpGet;
    const host = get.host || podIPs[0];
    if (!host) throw hookError('failed to find networking container: the pod has no IP');
    const port = resolvePort(get.port, container);
    const scheme = (get.scheme ?? 'HTTP').toLowerCase();
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const path = get.path ? (get.path.startsWith('/') ? get.path : `/${get.path}`) : '/';
    const headers = Object.fromEntries((get.httpHeaders ?? []).map((h) => [h.name, h.value]));
    try {
      await deps.httpGet(`${scheme}://${hostPart}:${port}${path}`, headers);
    } catch (err) {
      throw hookError(`HTTP lifecycle hook for Container "${container.name}" in Pod "${pod.metadata.name}" failed`, err);
    }
    return;
  }
  if (handler.sleep) {
    await sleepOnClock(deps.clock, handler.sleep.seconds * 1000);
    return;
  }
  throw hookError(`invalid handler for Container "${container.name}": exactly one of exec, httpGet or sleep is needed`);
}

/**
 * executePreStopHook: run the preStop handler but wait at most the grace period for it; return
 * the whole seconds it took, to be taken off the grace period. A failure is only logged.
 */
export async function executePreStopHook(deps: HookDeps, pod: Pod, container: Container, containerId: string, gracePeriodSeconds: number, podIPs: string[]): Promise<number> {
  const handler = container.lifecycle?.preStop;
  if (!handler) return 0;
  const started = deps.clock.now();
  const hook = runLifecycleHandler(deps, pod, container, containerId, handler, podIPs).then(
    () => deps.log.debug({ containerName: container.name, containerId }, 'PreStop hook completed'),
    (err: unknown) => deps.log.warn({ containerName: container.name, containerId, err }, 'PreStop hook failed'),
  );
  let timer: unknown;
  const deadline = new Promise<void>((resolve) => {
    timer = deps.clock.setTimeout(() => {
      deps.log.info({ containerName: container.name, containerId, gracePeriod: gracePeriodSeconds }, 'PreStop hook not completed in grace period');
      resolve();
    }, gracePeriodSeconds * 1000);
  });
  await Promise.race([hook, deadline]);
  deps.clock.clearTimeout(timer);
  return Math.floor((deps.clock.now() - started) / 1000);
}
