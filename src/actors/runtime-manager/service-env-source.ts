/**
 * A pod's Service environment variables from the Service informer, as Go's makeEnvironmentVariables
 * asks for them: a pod from the API server waits until the Services have been listed once (its
 * container start fails with Go's message and the next sync tries again), so a kubelet restarted
 * under running pods does not start one without KUBERNETES_SERVICE_HOST; a static pod does not wait
 * (it may run before any API server answers).
 *
 * Go builds the variables again for every container from every Service of the cluster. Here a pod
 * reads only its namespace's Services and the master one, and a namespace's variables are built
 * once per version of its Services (and of the master Service), then shared by every container
 * started there until one of them changes: a namespace of thousands of Services costs its first
 * container, not each. Each Service's own variables live as long as its object, so a change
 * redoes the merge, not every Service's strings.
 */
import { KubeletError } from '../../domain/errors.js';
import { isStaticPod } from '../../domain/pod/phase.js';
import type { Pod } from '../../domain/pod/types.js';
import { envVarsFromService, MASTER_SERVICE_NAMES, MASTER_SERVICE_NAMESPACE, serviceEnvVarMap, type Service } from '../../domain/runtime/service-env.js';
import type { ServiceLister } from '../../ports/services.js';

/** Variables built, and what they were built from. */
interface Built {
  /** The namespace's version (0 for the master Services alone). */
  version: number;
  masters: readonly Service[];
  env: ReadonlyMap<string, string>;
}

const sameServices = (a: readonly Service[], b: readonly Service[]) => a.length === b.length && a.every((s, i) => s === b[i]);

export function serviceEnvSource(services: ServiceLister): (pod: Pod) => ReadonlyMap<string, string> {
  const varsByService = new WeakMap<Service, readonly [string, string][]>();
  const varsOf = (service: Service) => {
    let vars = varsByService.get(service);
    if (!vars) varsByService.set(service, (vars = envVarsFromService(service)));
    return vars;
  };
  /** A pod with links, by namespace; only namespaces that have Services are kept. */
  const linked = new Map<string, Built>();
  /** A pod without links, or in a namespace without Services: the master Services alone. */
  let mastersOnly: Built | undefined;

  function forMasters(masters: readonly Service[]): ReadonlyMap<string, string> {
    if (mastersOnly && sameServices(mastersOnly.masters, masters)) return mastersOnly.env;
    mastersOnly = { version: 0, masters, env: serviceEnvVarMap(masters, MASTER_SERVICE_NAMESPACE, false, varsOf) };
    return mastersOnly.env;
  }

  function forNamespace(namespace: string, masters: readonly Service[]): ReadonlyMap<string, string> {
    const own = services.inNamespace(namespace);
    if (own.version === 0) return forMasters(masters);
    const cached = linked.get(namespace);
    if (cached && cached.version === own.version && sameServices(cached.masters, masters)) return cached.env;
    const candidates = namespace === MASTER_SERVICE_NAMESPACE ? own.services.values() : [...masters, ...own.services.values()];
    const env = serviceEnvVarMap(candidates, namespace, true, varsOf);
    // A namespace whose Services are all gone keeps nothing here.
    for (const known of linked.keys()) if (services.inNamespace(known).version === 0) linked.delete(known);
    linked.set(namespace, { version: own.version, masters, env });
    return env;
  }

  return (pod) => {
    if (!isStaticPod(pod) && !services.hasSynced()) {
      throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', 'services have not yet been read at least once, cannot construct envvars');
    }
    const defaults = services.inNamespace(MASTER_SERVICE_NAMESPACE).services;
    const masters = MASTER_SERVICE_NAMES.flatMap((name) => defaults.get(name) ?? []);
    // The API server defaults enableServiceLinks to true, and the pod config does for static pods.
    return pod.spec.enableServiceLinks ?? true ? forNamespace(pod.metadata.namespace ?? 'default', masters) : forMasters(masters);
  };
}
