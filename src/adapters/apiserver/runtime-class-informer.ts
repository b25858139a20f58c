/**
 * The RuntimeClass informer (Go's runtimeclass.Manager: a shared informer on node.k8s.io
 * RuntimeClasses, no resync): listed once, then watched, over the reflector (reflector.ts), which
 * keeps the last list through an API server outage and lists again after it. Only each class's
 * handler is kept; a pod naming a class fails its sandbox until the list answers.
 */
import type { Logger } from '../../log.js';
import type { KubeObject, RuntimeClassApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { RuntimeClassInformer } from '../../ports/runtime-classes.js';
import { startReflectedMap } from './reflected-map.js';

/** A RuntimeClass's handler; its wire form is the API server's contract (a required string). */
function handlerOf(object: KubeObject): string {
  const handler = (object as { handler?: unknown }).handler;
  return typeof handler === 'string' ? handler : '';
}

export function startRuntimeClassInformer(deps: { api: RuntimeClassApi; clock: Clock; logger: Logger }): RuntimeClassInformer {
  const classes = startReflectedMap({
    list: () => deps.api.listRuntimeClasses(),
    watch: (w) => deps.api.watchRuntimeClasses(w),
    clock: deps.clock,
    logger: deps.logger,
    what: 'runtimeclasses',
    logFields: { resource: 'runtimeclasses' },
    keyOf: (object) => object.metadata.name ?? '',
    valueOf: handlerOf,
  });
  return {
    handlerOf: (name) => classes.entries.get(name),
    hasSynced: () => classes.hasSynced(),
    stop: () => classes.stop(),
  };
}
