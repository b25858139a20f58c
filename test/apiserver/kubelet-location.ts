/**
 * Where the API server reaches a pod's kubelet, and which of the pod's containers a request means,
 * as Go's pod strategy works them out (LogLocation, ExecLocation, AttachLocation,
 * PortForwardLocation and the node's connection info): shared by pods/log, pods/exec,
 * pods/attach, pods/portforward and nodes/proxy.
 *
 * - The container: the one asked for, or the pod's only container; none with several, or one not
 *   in the pod, is a 400 with Go's message.
 * - The kubelet: `https://<node address>:<status.daemonEndpoints.kubeletEndpoint.Port>`, the
 *   address the first of the node's in the order of Go's default --kubelet-preferred-address-types,
 *   unless the test dials another host (`dialHost`: test kubelets listen on 127.0.0.1, which no
 *   node address is, since Go rejects a loopback node IP). An unknown node is a 404.
 */
import { ApiError, apiErrors, statusBody } from './status.js';
import type { ObjectStore } from './store.js';

/** Go's default --kubelet-preferred-address-types. */
const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
const DEFAULT_KUBELET_PORT = 10250;

export interface PodFields {
  spec?: { nodeName?: string; containers?: { name: string }[]; initContainers?: { name: string }[]; ephemeralContainers?: { name: string }[] };
}
interface NodeFields {
  status?: { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

/** The pod, or Go's 404 for it. */
export function podOf(store: ObjectStore, namespace: string, podName: string): PodFields {
  const pod = store.get('pods', namespace, podName) as PodFields | undefined;
  if (!pod) throw apiErrors.notFound('', 'pods', podName);
  return pod;
}

/** The container the request names, checked against the pod, with Go's messages. */
export function containerOf(pod: PodFields, podName: string, asked: string | null): string {
  const names = (pod.spec?.containers ?? []).map((c) => c.name);
  const inits = (pod.spec?.initContainers ?? []).map((c) => c.name);
  const ephemeral = (pod.spec?.ephemeralContainers ?? []).map((c) => c.name);
  if (!asked) {
    if (names.length === 1) return names[0]!;
    const more = inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '';
    throw apiErrors.badRequest(`a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]${more}`);
  }
  if (![...names, ...inits, ...ephemeral].includes(asked)) throw apiErrors.badRequest(`container ${asked} is not valid for pod ${podName}`);
  return asked;
}

/** The node's kubelet: host and port. */
export function kubeletAddress(store: ObjectStore, nodeName: string, dialHost?: string): { host: string; port: number } {
  const node = store.get('nodes', undefined, nodeName) as NodeFields | undefined;
  if (!node) throw apiErrors.notFound('', 'nodes', nodeName);
  const addresses = node.status?.addresses ?? [];
  const preferred = PREFERRED_ADDRESS_TYPES.map((t) => addresses.find((a) => a.type === t && a.address)).find((a) => a !== undefined);
  if (!preferred && dialHost === undefined) {
    throw new ApiError(statusBody(500, `no preferred addresses found; known addresses: ${JSON.stringify(addresses)}`));
  }
  return { host: dialHost ?? preferred!.address, port: node.status?.daemonEndpoints?.kubeletEndpoint?.Port || DEFAULT_KUBELET_PORT };
}
