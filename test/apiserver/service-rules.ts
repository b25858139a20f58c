/**
 * The write rules of the Service registry a kubelet can observe (Go's SetDefaults_Service and
 * ServiceSpec allocation), run on every create and update:
 *
 * - `type` defaults to ClusterIP, each port's `protocol` to TCP;
 * - a ClusterIP (or NodePort, LoadBalancer) Service without a cluster IP gets the next free one of
 *   10.96.0.0/16, as --service-cluster-ip-range does (10.96.0.1 is the `kubernetes` Service's); `None`
 *   makes it headless; an ExternalName Service has none; the cluster IP cannot change afterwards;
 * - a Service that is not ExternalName needs at least one port (422, as ValidateService answers).
 *
 * Not modelled: node ports, load balancers, dual stack, targetPort defaults, port name rules.
 */
import { invalidObject } from './field-errors.js';
import { isObject } from './json.js';
import type { KubeObject } from './resources.js';

/** The cluster IPs handed out, across this process's servers: unique in each, which is what matters. */
let nextHost = 10;

function allocateClusterIP(): string {
  const host = nextHost++;
  return `10.96.${Math.floor(host / 256) % 256}.${host % 256}`;
}

export function prepareServiceWrite(obj: KubeObject, old: KubeObject | undefined): void {
  const spec = (isObject(obj.spec) ? obj.spec : (obj.spec = {})) as Record<string, unknown>;
  const oldSpec = (old && isObject(old.spec) ? old.spec : {}) as Record<string, unknown>;
  spec.type ??= 'ClusterIP';
  const ports = Array.isArray(spec.ports) ? (spec.ports as Record<string, unknown>[]) : [];
  for (const port of ports) port.protocol ??= 'TCP';
  const name = obj.metadata?.name ?? '';
  if (spec.type === 'ExternalName') return;
  if (ports.length === 0) {
    throw invalidObject('', 'Service', name, [{ type: 'Invalid', field: 'spec.ports', value: '[]', detail: 'Required value' }]);
  }
  if (typeof oldSpec.clusterIP === 'string' && oldSpec.clusterIP !== '') {
    if (spec.clusterIP !== undefined && spec.clusterIP !== '' && spec.clusterIP !== oldSpec.clusterIP) {
      throw invalidObject('', 'Service', name, [{ type: 'Invalid', field: 'spec.clusterIP', value: String(spec.clusterIP), detail: 'field is immutable' }]);
    }
    spec.clusterIP = oldSpec.clusterIP;
  } else if (typeof spec.clusterIP !== 'string' || spec.clusterIP === '') {
    spec.clusterIP = allocateClusterIP();
  }
  spec.clusterIPs ??= [spec.clusterIP];
}

/** The master Service the API server keeps in `default` (its endpoint reconciler's): what in-cluster clients find it by. */
export function masterService(apiServerPort: number): KubeObject {
  return {
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: apiServerPort }] },
  };
}
