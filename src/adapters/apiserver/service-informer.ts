/**
 * The Service informer (Go's NewMainKubelet: a shared informer on every namespace's Services, no
 * resync): listed once, then watched, over the reflector (reflector.ts). Only what the environment
 * variables read of each Service is kept, indexed by namespace: a pod's variables read its own
 * namespace's Services and the master one, where Go lists every Service per container; the pods
 * wait on hasSynced, as Go's do.
 */
import type { Service, ServicePort } from '../../domain/runtime/service-env.js';
import type { Logger } from '../../log.js';
import type { KubeObject, ServiceApi } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { ServiceInformer } from '../../ports/services.js';
import { startReflectedMap } from './reflected-map.js';

/** The fields the variables read; a Service's wire form is the API server's contract. */
function serviceFromApi(object: KubeObject): Service {
  const spec = (object as { spec?: { clusterIP?: unknown; ports?: unknown } }).spec;
  const ports = Array.isArray(spec?.ports) ? (spec.ports as ServicePort[]).map((p) => ({ port: p.port, ...(p.name ? { name: p.name } : {}), ...(p.protocol ? { protocol: p.protocol } : {}) })) : [];
  const clusterIP = typeof spec?.clusterIP === 'string' ? spec.clusterIP : '';
  return { metadata: { name: object.metadata.name ?? '', namespace: object.metadata.namespace ?? '' }, spec: { clusterIP, ports } };
}

const keyOf = (object: KubeObject): string => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

export function startServiceInformer(deps: { api: ServiceApi; clock: Clock; logger: Logger }): ServiceInformer {
  const services = startReflectedMap({
    list: () => deps.api.listServices(),
    watch: (w) => deps.api.watchServices(w),
    clock: deps.clock,
    logger: deps.logger,
    what: 'services',
    logFields: { resource: 'services' },
    keyOf,
    valueOf: serviceFromApi,
    groupOf: (object) => ({ group: object.metadata.namespace ?? '', key: object.metadata.name ?? '' }),
  });
  return {
    inNamespace: (namespace) => {
      const { version, entries } = services.group(namespace);
      return { version, services: entries };
    },
    list: () => [...services.entries.values()],
    hasSynced: () => services.hasSynced(),
    stop: () => services.stop(),
  };
}
