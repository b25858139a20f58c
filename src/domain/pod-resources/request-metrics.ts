/**
 * The pod resources API's metrics (Go's pkg/kubelet/metrics: PodResourcesEndpointRequestsTotalCount
 * and the per-method counters its v1 server increments), by server_api_version. Go registers them as
 * counter vectors, which show no line before their first call; so here, a counter still at zero is
 * not written. Go also declares errors counters for List and GetAllocatableResources, which its v1
 * server never increments: they are left out.
 */
import type { MetricFamily } from '../kubelet-server/prometheus-text.js';

export interface PodResourcesRequests {
  total: number;
  list: number;
  getAllocatable: number;
  get: number;
  getErrors: number;
}

export const SERVER_API_VERSION = 'v1';

export function noPodResourcesRequests(): PodResourcesRequests {
  return { total: 0, list: 0, getAllocatable: 0, get: 0, getErrors: 0 };
}

const COUNTERS: ReadonlyArray<{ key: keyof PodResourcesRequests; name: string; help: string }> = [
  { key: 'total', name: 'kubelet_pod_resources_endpoint_requests_total', help: 'Cumulative number of requests to the PodResource endpoint. Broken down by server api version.' },
  { key: 'list', name: 'kubelet_pod_resources_endpoint_requests_list', help: 'Number of requests to the PodResource List endpoint. Broken down by server api version.' },
  { key: 'getAllocatable', name: 'kubelet_pod_resources_endpoint_requests_get_allocatable', help: 'Number of requests to the PodResource GetAllocatableResources endpoint. Broken down by server api version.' },
  { key: 'get', name: 'kubelet_pod_resources_endpoint_requests_get', help: 'Number of requests to the PodResource Get endpoint. Broken down by server api version.' },
  { key: 'getErrors', name: 'kubelet_pod_resources_endpoint_errors_get', help: 'Number of requests to the PodResource Get endpoint which returned error. Broken down by server api version.' },
];

export function podResourcesMetricFamilies(r: PodResourcesRequests): MetricFamily[] {
  return COUNTERS.filter((c) => r[c.key] > 0).map((c) => ({
    name: c.name, type: 'counter', help: c.help, samples: [{ labels: { server_api_version: SERVER_API_VERSION }, value: r[c.key] }],
  }));
}
