/**
 * The pod resources API of the real binary, standalone, on the embedded runtime, with the static
 * CPU manager and CPU 0 reserved: the gRPC server answers on `<root-dir>/pod-resources/kubelet.sock`
 * once the kubelet runs; List names the Guaranteed pod with the CPU it got alone (CPU 1), the running
 * static pod with its sidecar and app container on the shared pool, and leaves out the pod
 * admission refused; GetAllocatableResources answers the CPUs the static policy may give; Get
 * answers for a pod and fails with Go's text for an unknown one; /metrics counts the calls. The
 * exclusive CPUs are decided at admission and the API reads only the kubelet's state, so the
 * embedded runtime is enough.
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
    k = await startStaticPodKubelet({
      endpoint: 'embedded', nodeName: NODE, prefix: 'kts-podres-', serverPort: port,
      config: ['cpuManagerPolicy: static', 'reservedSystemCPUs: "0"'],
    });
    writeFileSync(join(k.manifests, 'pinned.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pinned' },
      spec: {
        terminationGracePeriodSeconds: 2,
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', SLEEP_UNTIL_TERM], resources: { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } } }],
      },
    }));
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
      spec: { containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'sleep 3600'], resources: { requests: { cpu: '1000' } } }] }, // idles: the test waits on its admission (OutOfcpu), not on time
    }));
    await until('runner and pinned running, big refused', async () => {
      const pods = ((await (await fetch(`http://${k.debug}/debug/pods`)).json()) as { pods: DebugPod[] }).pods;
      const running = (name: string) => pods.find((p) => p.name === `${name}-${NODE}`)?.status?.containerStatuses?.[0]?.state?.running;
      return running('runner') && running('pinned') && pods.find((p) => p.name === `big-${NODE}`)?.lifecycle === 'rejected';
    }, 60_000, () => k.stderr());
    client = podResourcesClient(socket());
  }, 90_000);

  afterAll(async () => {
    client?.close();
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
  }, 60_000);

  it('lists the Guaranteed pod with its exclusive CPU, the other with its sidecar then its app container on the shared pool, and not the refused one', async () => {
    const list = await client.list();
    const byName = (name: string) => list.pod_resources.find((p) => p.name === `${name}-${NODE}`);
    expect(list.pod_resources.map((p) => p.name).sort()).toEqual([`pinned-${NODE}`, `runner-${NODE}`]);
    expect(byName('pinned')).toEqual({ name: `pinned-${NODE}`, namespace: 'default', containers: [{ name: 'main', devices: [], cpu_ids: ['1'], memory: [], dynamic_resources: [] }] });
    expect(byName('runner')).toEqual({
      name: `runner-${NODE}`, namespace: 'default',
      containers: [
        { name: 'helper', devices: [], cpu_ids: [], memory: [], dynamic_resources: [] },
        { name: 'main', devices: [], cpu_ids: [], memory: [], dynamic_resources: [] },
      ],
    });
  });

  it('answers the CPUs the static policy may give: all but the reserved one', async () => {
    expect((await client.allocatable()).cpu_ids).toEqual(['1']);
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
