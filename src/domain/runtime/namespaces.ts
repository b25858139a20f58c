/** Linux namespace modes for a pod (runtimeutil.NamespacesForPod). */
import type { Pod } from '../pod/types.js';
import type { CriNamespaceOption } from './cri-config.js';

export function namespacesForPod(pod: Pod): CriNamespaceOption {
  return {
    network: pod.spec.hostNetwork ? 'NODE' : 'POD',
    // A shared process namespace is the sandbox's; otherwise each container has its own.
    pid: pod.spec.hostPID ? 'NODE' : pod.spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: pod.spec.hostIPC ? 'NODE' : 'POD',
  };
}
