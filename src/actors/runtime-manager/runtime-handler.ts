/**
 * The runtime handler a pod's sandbox runs with (runtimeclass.Manager.LookupRuntimeHandler): none
 * for a pod without runtimeClassName, else the handler of its RuntimeClass; a class that does not
 * exist fails the sandbox with the API's NotFound text, as Go's lister answers, and the next sync
 * looks again. The informer keeps what it last listed through an API server outage.
 * Differs from Go: standalone (no API server) Go has no RuntimeClass manager and runs such a pod on
 * the default handler; here it is refused, since the pod asked for a runtime it would not get.
 */
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import type { RuntimeClassLister } from '../../ports/runtime-classes.js';

const notFound = (name: string) => `runtimeclass.node.k8s.io ${JSON.stringify(name)} not found`;

export function runtimeHandlerFor(pod: Pod, classes: RuntimeClassLister | undefined): string {
  const name = pod.spec.runtimeClassName;
  if (name === undefined || name === '') return '';
  if (!classes) {
    throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', `RuntimeClass ${JSON.stringify(name)} cannot be looked up without an API server; refusing to run the pod on the default runtime handler`);
  }
  if (!classes.hasSynced()) throw new KubeletError('KLT_ERR_API_NOT_FOUND', `${notFound(name)} (the RuntimeClasses have not been listed yet)`);
  const handler = classes.handlerOf(name);
  if (handler === undefined) throw new KubeletError('KLT_ERR_API_NOT_FOUND', notFound(name));
  return handler;
}
