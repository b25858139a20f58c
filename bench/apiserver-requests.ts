/**
 * The requests the API server has served, by verb and resource (apiserver_request_total from its
 * /metrics, summed over codes and scopes), read as the lab's admin. With one kubelet on the lab and
 * its pods created with a nodeName, a burst's difference is mostly that kubelet's own requests.
 */
import type { KubeLab } from '../test/support/kube-lab-up.js';
import { adminMetrics, samplesOf } from './admin-metrics.js';

export async function apiserverRequests(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>): Promise<Map<string, number>> {
  const served = new Map<string, number>();
  for (const { labels, value } of samplesOf(await adminMetrics(lab, new URL('/metrics', lab.server)), 'apiserver_request_total')) {
    if (labels['component'] !== 'apiserver') continue;
    const key = `${labels['verb']}.${labels['resource']}${labels['subresource'] ? `/${labels['subresource']}` : ''}`;
    served.set(key, (served.get(key) ?? 0) + value);
  }
  return served;
}
