/**
 * The embedded runtime's stats RPCs over gRPC, on real host processes: CPU and memory are measured
 * from /proc for the container's process group, children included; what it cannot measure is absent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCriClient, type GrpcCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../../../src/adapters/embedded-runtime/index.js';
import type { ContainerStats, PodSandboxConfig } from '../../../../src/ports/cri.js';
import { until } from '../../../support/daemon.js';

let dir: string;
let runtime: EmbeddedRuntime;
let cri: GrpcCriClient;
let sandboxId: string;
let busyId: string;
let exitedId: string;

// The parent sleeps; the CPU is burnt by a child in the same process group.
const BUSY_CHILD = 'sh -c \'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; sleep 3600\' & trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kts-stats-'));
  runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state') });
  cri = createCriClient({ endpoint: runtime.endpoint });
  const config: PodSandboxConfig = { metadata: { name: 'p', uid: 'uid-p', namespace: 'default', attempt: 0 }, log_directory: join(dir, 'logs'), labels: { app: 'p' } };
  sandboxId = await cri.runtime.runPodSandbox(config);
  const create = (name: string, script: string) =>
    cri.runtime.createContainer(sandboxId, { metadata: { name, attempt: 0 }, image: { image: 'kubelet-ts.local/busybox:1.0' }, command: ['sh', '-c', script], labels: { c: name }, log_path: `${name}.log` }, config);
  busyId = await create('busy', BUSY_CHILD);
  exitedId = await create('done', 'exit 0');
  await cri.runtime.startContainer(busyId);
  await cri.runtime.startContainer(exitedId);
  await until('the short container to exit', async () => (await cri.runtime.containerStatus(exitedId)).status?.state === 'CONTAINER_EXITED', 10_000);
}, 30_000);

afterAll(async () => {
  await cri.runtime.stopPodSandbox(sandboxId).catch(() => {});
  await cri.runtime.removePodSandbox(sandboxId).catch(() => {});
  cri.close();
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
});

const value = (v: { value: string } | null | undefined) => BigInt(v?.value ?? '-1');

describe('the embedded runtime stats RPCs', () => {
  it('ListContainerStats reports non-zero CPU and memory for a running container, its children included', async () => {
    const busy = await until('CPU time of the busy child', async () => {
      const stats = await cri.runtime.listContainerStats({ id: busyId });
      return stats[0] && value(stats[0].cpu?.usage_core_nano_seconds) >= 50_000_000n ? stats[0] : null;
    }, 20_000);
    expect(busy.attributes?.metadata?.name).toBe('busy');
    expect(BigInt(busy.cpu!.timestamp)).toBeGreaterThan(0n);
    expect(busy.cpu!.usage_nano_cores).toBeNull();
    expect(value(busy.memory!.working_set_bytes)).toBeGreaterThan(0n);
    expect(value(busy.memory!.rss_bytes)).toBeGreaterThan(0n);
    expect(value(busy.memory!.working_set_bytes)).toBeGreaterThanOrEqual(value(busy.memory!.rss_bytes));
    expect(busy.memory!.available_bytes).toBeNull();
    expect(busy.writable_layer).toBeNull();
  }, 30_000);

  it('reports an exited container with nothing measured, and filters by sandbox and labels', async () => {
    const all = await cri.runtime.listContainerStats({ pod_sandbox_id: sandboxId });
    const byName = new Map(all.map((s: ContainerStats) => [s.attributes?.metadata?.name, s]));
    expect([...byName.keys()].sort()).toEqual(['busy', 'done']);
    expect(byName.get('done')!.cpu).toBeNull();
    expect(byName.get('done')!.memory).toBeNull();
    expect((await cri.runtime.listContainerStats({ label_selector: { c: 'done' } })).map((s) => s.attributes?.id)).toEqual([exitedId]);
    expect(await cri.runtime.listContainerStats({ pod_sandbox_id: 'nope' })).toEqual([]);
  });

  it('ContainerStats answers for one container and NOT_FOUND for an unknown one', async () => {
    const one = await cri.runtime.containerStats(busyId);
    expect(one?.attributes?.id).toBe(busyId);
    expect(value(one?.cpu?.usage_core_nano_seconds)).toBeGreaterThan(0n);
    await expect(cri.runtime.containerStats('nope')).rejects.toMatchObject({ code: 'KLT_ERR_CRI_NOT_FOUND' });
  });

  it('ListPodSandboxStats sums the containers and counts the processes', async () => {
    const [pod] = await cri.runtime.listPodSandboxStats();
    expect(pod?.attributes?.id).toBe(sandboxId);
    const linux = pod!.linux!;
    const busy = linux.containers.find((c) => c.attributes?.id === busyId)!;
    expect(value(linux.cpu?.usage_core_nano_seconds)).toBeGreaterThanOrEqual(value(busy.cpu?.usage_core_nano_seconds));
    expect(value(linux.memory?.working_set_bytes)).toBeGreaterThan(0n);
    // sh, its busy-loop child (now sleeping), and the sleep it waits on: at least two.
    expect(value(linux.process?.process_count)).toBeGreaterThanOrEqual(2n);
    expect(linux.network).toBeNull();
  });
});
