/**
 * A pod's Service environment variables from the Service informer, as Go's makeEnvironmentVariables
 * asks for them: a pod from the API server waits until the Services have been listed once (its
 * container start fails with Go's message and the next sync tries again), so a kubelet restarted
 * under running pods does not start one without KUBERNETES_SERVICE_HOST; a static pod does not wait
 * (it may run before any API server answers).
 */
import { KubeletError } from '../../domain/errors.js';
import { isStaticPod } from '../../domain/pod/phase.js';
import type { Pod } from '../../domain/pod/types.js';
import { serviceEnvVarMap } from '../../domain/runtime/service-env.js';
import type { ServiceLister } from '../../ports/services.js';

export function serviceEnvSource(services: ServiceLister): (pod: Pod) => ReadonlyMap<string, string> {
  return (pod) => {
    if (!isStaticPod(pod) && !services.hasSynced()) {
      throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', 'services have not yet been read at least once, cannot construct envvars');
    }
    // The API server defaults enableServiceLinks to true, and the pod config does for static pods.
    return serviceEnvVarMap(services.list(), pod.metadata.namespace ?? 'default', pod.spec.enableServiceLinks ?? true);
  };
}
