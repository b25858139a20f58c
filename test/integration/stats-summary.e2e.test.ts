/**
 * GET /stats/summary from the real binary over real TLS, with a running static pod, on the embedded
 * runtime and on containerd (when KUBELET_IT_CRI names one; in CI it must): the body parses as the
 * Go Summary type, and the pod and its container are there with memory and CPU measured. A second
 * pod's emptyDir (1 MiB written into it), downward API and projected volumes are listed with their
 * figures, measured every 2 s (volumeStatsAggPeriod). (A static pod may not use a configMap:
 * volumes.e2e.test.ts checks one on the real control plane.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { httpsGet, until } from '../support/daemon.js';
import { startServingKubeletWithBusyPod, type ServingKubelet } from '../support/serving-kubelet.js';
import { summaryShapeProblems } from '../support/summary-shape.js';

const NODE = 'node-stats';
const RUNTIMES: { name: string; endpoint: string }[] = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

interface FsBody { time?: string; availableBytes?: number; capacityBytes?: number; usedBytes?: number; inodesFree?: number; inodes?: number; inodesUsed?: number }
interface VolumeBody extends FsBody { name: string; pvcRef?: { name: string; namespace: string } }

interface SummaryBody {
  node: { nodeName: string; cpu?: { usageCoreNanoSeconds?: number }; memory?: { workingSetBytes?: number }; fs?: { capacityBytes?: number } };
  pods: {
    podRef: { name: string; namespace: string; uid: string };
    containers: { name: string; cpu?: { usageCoreNanoSeconds?: number; usageNanoCores?: number }; memory?: { workingSetBytes?: number } }[];
    volume?: VolumeBody[];
    'ephemeral-storage'?: FsBody;
  }[];
}

const MiB = 1024 * 1024;

/** A pod whose container writes 1 MiB into its emptyDir, with a downward API and a projected volume beside it. */
const VOLUMES_POD = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'vols', labels: { app: 'vols' } },
  spec: {
    terminationGracePeriodSeconds: 1,
    containers: [{
      name: 'main', image: 'kubelet-ts.local/busybox:1.0',
      // `sleep 1` is the idle loop of a container that must stay up; the test polls the summary.
      command: ['sh', '-c', "trap 'exit 0' TERM; dd if=/dev/urandom of=/scratch/blob bs=1024 count=1024 && sync; while :; do sleep 1 & wait $!; done"],
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }, { name: 'dapi', mountPath: '/dapi' }, { name: 'info', mountPath: '/info' }],
    }],
    volumes: [
      { name: 'scratch', emptyDir: {} },
      { name: 'dapi', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
      { name: 'info', projected: { sources: [{ downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
    ],
  },
};

describe('the shape check', () => {
  it('finds a missing field, a wrong type and an unknown field', () => {
    expect(summaryShapeProblems({ node: { nodeName: 'n', startTime: '2024-01-01T00:00:00Z' }, pods: [] })).toEqual([]);
    expect(summaryShapeProblems({ node: { startTime: 'yesterday', cpu: { time: '2024-01-01T00:00:00Z', usageNanoCores: '1' } }, pods: [], extra: 1 })).toEqual([
      'summary.node.nodeName: missing',
      'summary.node.startTime: want an RFC 3339 time, got "yesterday"',
      'summary.node.cpu.usageNanoCores: want an unsigned integer, got "1"',
      'summary.extra: not a field of the Go type',
    ]);
  });
});

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `/stats/summary on the ${rt.name} runtime`, () => {
  let served: ServingKubelet;
  let port = 0;
  let readOnlyPort = 0;
  const summary = async (query = '') => {
    const res = await httpsGet(port, `/stats/summary${query}`);
    if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body}`);
    return { raw: JSON.parse(res.body) as unknown, body: JSON.parse(res.body) as SummaryBody };
  };
  const web = (s: SummaryBody) => s.pods.find((p) => p.podRef.name === `web-${NODE}`);

  beforeAll(async () => {
    served = await startServingKubeletWithBusyPod({ endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-stats-', config: ['volumeStatsAggPeriod: 2s'] });
    ({ port, readOnlyPort } = served);
    writeFileSync(join(served.kubelet.manifests, 'vols.json'), JSON.stringify(VOLUMES_POD));
    await until('the pod in the summary with CPU measured', async () => {
      const c = web((await summary()).body)?.containers[0];
      return (c?.cpu?.usageCoreNanoSeconds ?? 0) > 0;
    }, 60_000, () => served.kubelet.stderr());
  }, 90_000);

  afterAll(async () => {
    await served?.dispose();
  }, 60_000);

  it('parses as the Go Summary type, with the running pod, its container, memory and CPU', async () => {
    const { raw, body } = await summary();
    expect(summaryShapeProblems(raw)).toEqual([]);
    expect(body.node.nodeName).toBe(NODE);
    expect(body.node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(body.node.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(body.node.fs?.capacityBytes).toBeGreaterThan(0);
    const pod = web(body);
    expect(pod?.podRef.namespace).toBe('default');
    const main = pod?.containers.find((c) => c.name === 'main');
    expect(main?.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(main?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  });

  it('lists the pod\'s volumes with their figures, the emptyDir holding what its container wrote, and counts it in the pod\'s ephemeral storage', async () => {
    const vols = (s: SummaryBody) => s.pods.find((p) => p.podRef.name === `vols-${NODE}`);
    const scratchUsed = (s: SummaryBody) => vols(s)?.volume?.find((v) => v.name === 'scratch')?.usedBytes ?? 0;
    await until('the emptyDir measured with 1 MiB in it', async () => scratchUsed((await summary()).body) >= MiB, 45_000, () => served.kubelet.stderr());
    const { raw, body } = await summary();
    expect(summaryShapeProblems(raw)).toEqual([]);
    const pod = vols(body)!;
    // The disk emptyDir counts in the ephemeral storage and comes first (Go's IsLocalEphemeralVolume).
    expect(pod.volume?.map((v) => v.name)).toEqual(['scratch', 'dapi', 'info']);
    for (const v of pod.volume ?? []) {
      expect(v.pvcRef).toBeUndefined();
      expect(v.capacityBytes).toBeGreaterThan(0);
      expect(v.availableBytes).toBeLessThanOrEqual(v.capacityBytes!);
      expect(v.inodes).toBeGreaterThan(0);
      expect(v.inodesUsed).toBeGreaterThanOrEqual(1);
      expect(Date.parse(v.time!)).toBeGreaterThan(Date.now() - 120_000);
    }
    const scratch = pod.volume!.find((v) => v.name === 'scratch')!;
    expect(scratch.usedBytes).toBeLessThan(2 * MiB);
    // The directory and the file.
    expect(scratch.inodesUsed).toBe(2);
    // The projected volume holds its labels file behind the atomic writer's links.
    expect(pod.volume!.find((v) => v.name === 'info')!.inodesUsed).toBeGreaterThanOrEqual(3);
    expect(pod['ephemeral-storage']?.usedBytes).toBeGreaterThanOrEqual(MiB);
    // The busy pod mounts nothing: no list.
    expect(web(body)?.volume).toBeUndefined();
  }, 60_000);

  it('gives usageNanoCores once a second sample exists', async () => {
    await until('usageNanoCores of the container', async () => web((await summary()).body)?.containers[0]?.cpu?.usageNanoCores !== undefined, 20_000, () => served.kubelet.stderr());
  }, 30_000);

  it('with only_cpu_and_memory=true, still the Go type, without file systems; on the read-only port too', async () => {
    const { raw } = await summary('?only_cpu_and_memory=true');
    expect(summaryShapeProblems(raw)).toEqual([]);
    expect((raw as { node: object }).node).not.toHaveProperty('fs');
    const ro = await fetch(`http://127.0.0.1:${readOnlyPort}/stats/summary`);
    expect(ro.status).toBe(200);
    expect(summaryShapeProblems(await ro.json())).toEqual([]);
    expect((await httpsGet(port, '/stats/summary?only_cpu_and_memory=maybe')).status).toBe(400);
  });
});
