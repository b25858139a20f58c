/**
 * An in-place resize end to end on this host: the runtime manager over the embedded runtime (gRPC)
 * and over containerd (KUBELET_IT_CRI, cgroupfs driver), the pod under a real pod cgroup. A pod started with one cpu limit is synced with a bigger one: the
 * pod cgroup and the container's cgroup get the new quota, the container keeps running (same id, no
 * restart), and a sync with a smaller memory limit shrinks the container before the pod. The
 * cgroups live under a private root, removed after.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { actuatedState } from '../../../src/actors/runtime-manager/actuated-state.js';
import { createRuntimeManager } from '../../../src/actors/runtime-manager/runtime-manager.js';
import { detectCgroupLayout } from '../../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../../src/adapters/host/cgroupfs.js';
import { createRuntimeHost } from '../../../src/adapters/host/runtime-host.js';
import { resourceConfigForPod } from '../../../src/domain/cgroups/pod-cgroup.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { Clock } from '../../../src/ports/clock.js';
import type { RuntimeManager } from '../../../src/ports/runtime-manager.js';
import { selectCriTargets, type CriTargetHandle } from '../../adapters/cri-contract/targets.js';
import { embeddedRuntimeTarget } from '../../adapters/embedded-runtime/contract-target.js';
import { allOf, cgroupsPart, describeNeeding } from '../../support/real-parts.js';
import { SLEEP_UNTIL_TERM } from '../../support/sleeper.js';

const Mi = 2 ** 20;

const wallClock: Clock = { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };
const settings = { enforceCpuLimits: true, cpuPeriodMicros: 100_000, podPidsLimit: -1 };
const res = (cpu: string, memory: string) => ({ requests: { cpu, memory }, limits: { cpu, memory } });

for (const { target, part } of selectCriTargets(process.env, [embeddedRuntimeTarget()])) describeNeeding(allOf(part, cgroupsPart()), `an in-place resize on ${target.name} in a pod cgroup`, () => {
  const ROOT = `/kubelet-ts-test-resize-${process.pid}-${target.name.split(' ')[0]}`;
  const POD_CGROUP = `${ROOT}/podr`;
  const main: Container = { name: 'main', image: target.image, imagePullPolicy: 'Never', command: ['sh', '-c', SLEEP_UNTIL_TERM], resources: res('200m', '64Mi') };
  const pod = (resources: Container['resources']): Pod => ({
    metadata: { name: 'resize', namespace: 'default', uid: `resize-${process.pid}` },
    spec: { restartPolicy: 'Always', terminationGracePeriodSeconds: 2, containers: [{ ...main, resources }] },
  });

  let handle: CriTargetHandle;
  let logsDir: string;
  let cgroups: Cgroupfs;
  let manager: RuntimeManager;

  beforeAll(async () => {
    cgroups = new Cgroupfs(await detectCgroupLayout());
    await cgroups.create(ROOT, {});
    await cgroups.create(POD_CGROUP, resourceConfigForPod(pod(main.resources), settings));
    handle = await target.start();
    logsDir = await mkdtemp(join(tmpdir(), 'klt-resize-host-'));
    manager = createRuntimeManager({
      cri: handle.cri, clock: wallClock, podLogsDir: logsDir, logger: pino({ level: 'silent' }), host: createRuntimeHost(), actuated: actuatedState(),
      node: {
        resolvConf: '', memoryCapacityBytes: 1 << 30, cpuCfsQuota: true, cpuCfsQuotaPeriodMicros: 100_000,
        cgroupParentFor: () => POD_CGROUP,
        ensurePodCgroup: async () => POD_CGROUP,
        podCgroup: {
          read: () => cgroups.read(POD_CGROUP),
          desired: (p) => resourceConfigForPod(p, settings),
          write: (_p, config) => cgroups.update(POD_CGROUP, config),
        },
      },
    });
  }, 30_000);

  afterAll(async () => {
    await manager?.killPod(pod(main.resources)).catch(() => {});
    await manager?.removePod(pod(main.resources).metadata.uid).catch(() => {});
    await handle?.stop();
    if (logsDir) await rm(logsDir, { recursive: true, force: true });
    await cgroups?.destroy(ROOT);
  }, 30_000);

  it('raises the cpu limit of the running container in its cgroup and the pod\'s, then lowers its memory, without a restart', async () => {
    const started = await manager.syncPod(pod(main.resources));
    expect(started.ok).toBe(true);
    const before = started.podStatus!.runtimeStatus.containers.find((c) => c.name === 'main')!;
    expect(before.state).toBe('running');
    const containerCgroup = `${POD_CGROUP}/${before.id}`;
    expect(await cgroups.read(containerCgroup)).toMatchObject({ cpuQuota: 20_000, memoryLimitBytes: 64 * Mi });

    const grown = await manager.syncPod(pod(res('500m', '64Mi')));
    expect(grown.resize).toEqual({ status: 'applied' });
    expect(await cgroups.read(containerCgroup)).toMatchObject({ cpuQuota: 50_000, cpuShares: 512 });
    expect(await cgroups.read(POD_CGROUP)).toMatchObject({ cpuQuota: 50_000 });
    const after = grown.podStatus!.runtimeStatus.containers.filter((c) => c.name === 'main');
    expect(after.map((c) => [c.id, c.state, c.restartCount])).toEqual([[before.id, 'running', 0]]);

    const shrunk = await manager.syncPod(pod(res('500m', '48Mi')));
    expect(shrunk.resize).toEqual({ status: 'applied' });
    expect(shrunk.steps.filter((s) => s.step === 'updateContainerResources' || s.step === 'updatePodCgroup').map((s) => s.step))
      .toEqual(['updateContainerResources', 'updatePodCgroup']);
    expect(await cgroups.read(containerCgroup)).toMatchObject({ memoryLimitBytes: 48 * Mi });
    expect(await cgroups.read(POD_CGROUP)).toMatchObject({ memoryLimitBytes: 48 * Mi });
    expect(shrunk.podStatus!.runtimeStatus.containers.filter((c) => c.name === 'main').map((c) => c.id)).toEqual([before.id]);
  }, 60_000);
});
