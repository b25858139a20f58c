/**
 * The RuntimeClass informer (Go's runtimeclass.Manager: a shared informer on node.k8s.io
 * RuntimeClasses, no resync): listed once, then watched, over the reflector (reflector.ts), which
 * keeps the last list through an API server outage and lists again after it. Only each class's
 * handler is kept.
 */
import type { Logger } from '../../log.js';
import type { KubeObject, RuntimeClassApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { RuntimeClassInformer } from '../../ports/runtime-classes.js';
import { startReflector } from './reflector.js';

/** A RuntimeClass's handler; its wire form is the API server's contract (a required string). */
function handlerOf(object: KubeObject): string {
  const handler = (object as { handler?: unknown }).handler;
  return typeof handler === 'string' ? handler : '';
}

export function startRuntimeClassInformer(deps: { api: RuntimeClassApi; clock: Clock; logger: Logger }): RuntimeClassInformer {
  const handlers = new Map<string, string>();
  let synced = false;
  const reflector = startReflector<KubeObject>({
    list: () => deps.api.listRuntimeClasses(),
    watch: (w) => deps.api.watchRuntimeClasses(w),
    clock: deps.clock,
    logger: deps.logger,
    what: 'runtimeclasses',
    logFields: { resource: 'runtimeclasses' },
    onReplaced: (items) => {
      handlers.clear();
      for (const item of items) handlers.set(item.metadata.name ?? '', handlerOf(item));
      synced = true;
    },
    onChanged: (type, object) => {
      if (type === 'DELETED') handlers.delete(object.metadata.name ?? '');
      else handlers.set(object.metadata.name ?? '', handlerOf(object));
    },
    // The reflector logs and retries; a pod naming a class fails its sandbox until the list answers.
    onFailed: () => {},
  });
  return {
    handlerOf: (name) => handlers.get(name),
    hasSynced: () => synced,
    stop: () => reflector.stop(),
  };
}
