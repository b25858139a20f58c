/**
 * The pod resources API of the real binary, standalone, on the embedded runtime: the gRPC server
 * answers on `<root-dir>/pod-resources/kubelet.sock` once the kubelet runs; List names the running
 * static pod with its sidecar and app container and leaves out the pod admission refused; Get
 * answers for a pod and fails with Go's text for an unknown one; /metrics counts the calls. The
 * API reads only the kubelet's state, so the embedded runtime is enough.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpsGet, startStaticPodKubelet, until, type StaticPodKubelet } from '../support/daemon.js';
import { podResourcesClient, type PodResourcesClient } from '../support/pod-resources-client.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-podres';
const IMAGE = 'kubelet-ts.local/busybox:1.0';

interface DebugPod { name: string; lifecycle: string; status: { containerStatuses?: { state?: { running?: object } }[] } | null }

describe('the pod resources API of a running kubelet', () => {
  let k: StaticPodKubelet;
  let client: PodResourcesClient;
  let port = 0;
  const socket = () => join(k.root, 'pod-resources', 'kubelet.sock');

  beforeAll(async () => {
    port = await freePort();
    k = await startStaticPodKubelet({ endpoint: 'embedded', nodeName: NODE, prefix: 'kts-podres-', serverPort: port });
    writeFileSync(join(k.manifests, 'runner.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' },
      spec: {
        terminationGracePeriodSeconds: 2,
        initContainers: [{ name: 'helper', image: IMAGE, restartPolicy: 'Always', command: ['sh', '-c', SLEEP_UNTIL_TERM] }],
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', SLEEP_UNTIL_TERM] }],
      },
    }));
    writeFileSync(join(k.manifests, 'big.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big' },
      spec: { containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'sleep 3600'], resources: { requests: { cpu: '1000' } } }] },
    }));
    await until('runner running and big refused', async () => {
      const pods = ((await (await fetch(`http://${k.debug}/debug/pods`)).json()) as { pods: DebugPod[] }).pods;
      const running = pods.find((p) => p.name === `runner-${NODE}`)?.status?.containerStatuses?.[0]?.state?.running;
      return running && pods.find((p) => p.name === `big-${NODE}`)?.lifecycle === 'rejected';
    }, 60_000, () => k.stderr());
    client = podResourcesClient(socket());
  }, 90_000);

  afterAll(async () => {
    client?.close();
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('lists the active pod with its sidecar then its app container, and not the refused one', async () => {
    const list = await client.list();
    expect(list.pod_resources).toEqual([{
      name: `runner-${NODE}`, namespace: 'default',
      containers: [
        { name: 'helper', devices: [], cpu_ids: [], memory: [] },
        { name: 'main', devices: [], cpu_ids: [], memory: [] },
      ],
    }]);
  });

  it("answers Get for a pod, and Go's error for one it does not know", async () => {
    expect((await client.get('default', `runner-${NODE}`)).pod_resources?.containers.map((c) => c.name)).toEqual(['helper', 'main']);
    const failure = await client.get('default', 'nope').then(() => null, (err: grpc.ServiceError) => err.details);
    expect(failure).toBe('pod nope in namespace default not found');
  });

  it('counts the calls on /metrics', async () => {
    await client.allocatable();
    const metrics = (await httpsGet(port, '/metrics')).body.split('\n');
    expect(metrics).toContainEqual(expect.stringMatching(/^kubelet_pod_resources_endpoint_requests_total\{server_api_version="v1"\} [1-9]\d*$/));
    expect(metrics).toContainEqual(expect.stringMatching(/^kubelet_pod_resources_endpoint_requests_get_allocatable\{server_api_version="v1"\} [1-9]\d*$/));
  });
});
