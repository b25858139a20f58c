/**
 * The embedded runtime under a pod cgroup (a sandbox with cgroup_parent), as root on this host: the
 * container's process runs in `<parent>/<id>` with its memory limit, its stats are the cgroup's, and
 * the cgroup goes with the container. The parent lives under a private root, removed after.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCriClient, type GrpcCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime } from '../../../../src/adapters/embedded-runtime/index.js';
import { detectCgroupLayout, type CgroupLayout } from '../../../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../../../src/adapters/host/cgroupfs.js';
import type { PodSandboxConfig } from '../../../../src/ports/cri.js';
import { until } from '../../../support/daemon.js';
import { cgroupsPart, describeNeeding } from '../../../support/real-parts.js';

const PARENT = `/kubelet-ts-test-embedded-${process.pid}/podp`;

describeNeeding(cgroupsPart(), 'the embedded runtime in a pod cgroup', () => {
  let dir: string;
  let runtime: EmbeddedRuntime;
  let cri: GrpcCriClient;
  let cgroups: Cgroupfs;
  let layout: CgroupLayout;

  beforeAll(async () => {
    layout = await detectCgroupLayout();
    cgroups = new Cgroupfs(layout);
    await cgroups.create(PARENT, {});
    dir = await mkdtemp(join(tmpdir(), 'kts-embedded-cgroup-'));
    runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state') });
    cri = createCriClient({ endpoint: runtime.endpoint });
  });

  afterAll(async () => {
    cri?.close();
    await runtime?.close();
    await rm(dir, { recursive: true, force: true });
    await cgroups.destroy(PARENT.replace(/\/podp$/, ''));
  });

  it('runs the container in <parent>/<id> with its memory limit, reads its stats there, and removes the cgroup with it', async () => {
    const config: PodSandboxConfig = { metadata: { name: 'p', uid: 'p', namespace: 'default', attempt: 0 }, log_directory: join(dir, 'logs'), linux: { cgroup_parent: PARENT } };
    const sandbox = await cri.runtime.runPodSandbox(config);
    const id = await cri.runtime.createContainer(sandbox, {
      metadata: { name: 'c', attempt: 0 }, image: { image: 'kubelet-ts.local/busybox:1.0' },
      // Idles until SIGTERM; the sleep is its loop's step, not a wait of the test's.
      command: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'], log_path: 'c.log',
      linux: { resources: { memory_limit_in_bytes: String(32 * 2 ** 20), cpu_shares: '256' } },
    }, config);
    await cri.runtime.startContainer(id);
    const { pid } = JSON.parse((await cri.runtime.containerStatus(id, true)).info?.info ?? '{}') as { pid: number };
    const cgroup = `${PARENT}/${id}`;
    expect(await cgroups.read(cgroup)).toMatchObject({ memoryLimitBytes: 32 * 2 ** 20, cpuShares: 256 });
    const procs = () => readFileSync(join(layout.version === 'v2' ? layout.unifiedRoot : layout.controllers.get('memory')!, cgroup, 'cgroup.procs'), 'utf8');
    expect(procs().split('\n')).toContain(String(pid));
    // sh and the sleep it waits on: the cgroup's processes, as the stats count them.
    const stats = await until('two processes charged to the cgroup', async () => {
      const [s] = await cri.runtime.listPodSandboxStats();
      return s && BigInt(s.linux?.process?.process_count?.value ?? 0) >= 2n ? s : undefined;
    }, 10_000);
    expect(BigInt(stats.linux!.memory!.working_set_bytes!.value)).toBeGreaterThan(0n);
    await cri.runtime.stopPodSandbox(sandbox);
    await cri.runtime.removePodSandbox(sandbox);
    expect(await cgroups.exists(cgroup)).toBe(false);
  });

  /** A sandbox under PARENT and one sleeping container in it, created with `extra` (not started). */
  async function sleeper(name: string, extra: { run_as_user?: string; command?: string[]; memory?: number } = {}) {
    const config: PodSandboxConfig = { metadata: { name, uid: name, namespace: 'default', attempt: 0 }, log_directory: join(dir, 'logs'), linux: { cgroup_parent: PARENT } };
    const sandbox = await cri.runtime.runPodSandbox(config);
    const id = await cri.runtime.createContainer(sandbox, {
      metadata: { name: 'c', attempt: 0 }, image: { image: 'kubelet-ts.local/busybox:1.0' },
      // Idles until SIGTERM; the sleep is its loop's step, not a wait of the test's.
      command: extra.command ?? ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'], log_path: `${name}.log`,
      linux: {
        resources: { memory_limit_in_bytes: String((extra.memory ?? 32) * 2 ** 20) },
        ...(extra.run_as_user ? { security_context: { run_as_user: { value: extra.run_as_user } } } : {}),
      },
    }, config);
    return { sandbox, id, cgroup: `${PARENT}/${id}` };
  }
  const pidOf = async (id: string) => (JSON.parse((await cri.runtime.containerStatus(id, true)).info?.info ?? '{}') as { pid: number }).pid;

  it('puts a container that runs as another user in its cgroup in every hierarchy (the runtime moves it, not the user)', async () => {
    const { sandbox, id, cgroup } = await sleeper('user', { run_as_user: '65534' });
    await cri.runtime.startContainer(id);
    const pid = await pidOf(id);
    expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+65534\b/m);
    // /proc/<pid>/cgroup: one line per hierarchy, each ending in the container's cgroup (v1's unified
    // hierarchy included, where a user could not have moved itself).
    const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
    const mine = (line: string) => line.endsWith(`:${cgroup}`);
    expect(lines.filter((l) => /:(memory|cpu|pids)(,|:)|^0::/.test(l)).every(mine), lines.join('\n')).toBe(true);
    await cri.runtime.stopPodSandbox(sandbox);
    await cri.runtime.removePodSandbox(sandbox);
  });

  it('fails StartContainer for a command that does not exist, as without a cgroup (no exit 127 behind the gate)', async () => {
    const { sandbox, id } = await sleeper('missing', { command: ['no-such-command-kts'] });
    await expect(cri.runtime.startContainer(id)).rejects.toThrow(/executable file not found/);
    expect((await cri.runtime.containerStatus(id)).status).toMatchObject({ reason: 'StartError', exit_code: 128 });
    await cri.runtime.removePodSandbox(sandbox);
  });

  it('applies UpdateContainerResources to the running container\'s cgroup', async () => {
    const { sandbox, id, cgroup } = await sleeper('resize', { memory: 32 });
    await cri.runtime.startContainer(id);
    await cri.runtime.updateContainerResources!(id, { memory_limit_in_bytes: String(48 * 2 ** 20), cpu_shares: '512' });
    expect(await cgroups.read(cgroup)).toMatchObject({ memoryLimitBytes: 48 * 2 ** 20, cpuShares: 512 });
    // ContainerStatus reports the settings as updated, as containerd does.
    expect((await cri.runtime.containerStatus(id)).status?.resources?.linux).toMatchObject({ memory_limit_in_bytes: String(48 * 2 ** 20), cpu_shares: '512' });
    await cri.runtime.stopPodSandbox(sandbox);
    await cri.runtime.removePodSandbox(sandbox);
  });
});
