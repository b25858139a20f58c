/**
 * A client of the kubelet's pod resources API (v1 PodResourcesLister) on its unix socket, for
 * tests. Its codecs come from @grpc/proto-loader reading proto/podresources/v1/api.proto, not from
 * the daemon's descriptor, so a test reads the server's bytes as any other client of that proto would.
 *
 * The usual check is one call: `await devicesHeld(socket, 'example.com/resource')` answers
 * `{ 'default/my-pod/my-container': ['Dev-1'] }`, which container of which pod holds which device.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { AllocatableResourcesResponse__Output } from '../../src/generated/v1/AllocatableResourcesResponse.js';
import type { GetPodResourcesResponse__Output } from '../../src/generated/v1/GetPodResourcesResponse.js';
import type { ListPodResourcesResponse__Output } from '../../src/generated/v1/ListPodResourcesResponse.js';

const PROTO = fileURLToPath(new URL('../../proto/podresources/v1/api.proto', import.meta.url));
const CALL_TIMEOUT_MS = 5000;

export interface PodResourcesClient {
  list(): Promise<ListPodResourcesResponse__Output>;
  get(namespace: string, name: string): Promise<GetPodResourcesResponse__Output>;
  allocatable(): Promise<AllocatableResourcesResponse__Output>;
  close(): void;
}

type Unary = (request: object, options: grpc.CallOptions, callback: (err: grpc.ServiceError | null, answer: object) => void) => void;

export function podResourcesClient(socketPath: string): PodResourcesClient {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
  // cast: proto-loader's package object is untyped; the service is the one the proto declares.
  const Lister = (grpc.loadPackageDefinition(definition).v1 as { PodResourcesLister: grpc.ServiceClientConstructor }).PodResourcesLister;
  const client = new Lister(`unix:${socketPath}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<'List' | 'Get' | 'GetAllocatableResources', Unary>;
  const call = <T>(method: 'List' | 'Get' | 'GetAllocatableResources', request: object) => new Promise<T>((resolve, reject) => {
    client[method](request, { deadline: Date.now() + CALL_TIMEOUT_MS }, (err, answer) => (err ? reject(err) : resolve(answer as T)));
  });
  return {
    list: () => call('List', {}),
    get: (namespace, name) => call('Get', { pod_namespace: namespace, pod_name: name }),
    allocatable: () => call('GetAllocatableResources', {}),
    close: () => client.close(),
  };
}

/** Lists once: per `namespace/pod/container` holding devices of `resource`, their IDs, sorted. */
export async function devicesHeld(socketPath: string, resource: string): Promise<Record<string, string[]>> {
  const client = podResourcesClient(socketPath);
  try {
    const held: Record<string, string[]> = {};
    for (const pod of (await client.list()).pod_resources) {
      for (const c of pod.containers) {
        const ids = c.devices.filter((d) => d.resource_name === resource).flatMap((d) => d.device_ids);
        if (ids.length > 0) held[`${pod.namespace}/${pod.name}/${c.name}`] = [...new Set(ids)].sort();
      }
    }
    return held;
  } finally {
    client.close();
  }
}
