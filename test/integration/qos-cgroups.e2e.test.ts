/**
 * QoS and pod cgroups end to end on the embedded runtime and on containerd (cgroupfs driver): the
 * real binary with cgroupsPerQOS
 * under a private cgroup root, three pods of the three QoS classes read back from the cgroup files
 * with Go's values, a container past its memory limit OOM-killed, and the pod cgroups gone once the
 * pods are. The root is made before the kubelet starts (Go requires it to exist) and destroyed after.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { detectCgroupLayout, type CgroupLayout } from '../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../src/adapters/host/cgroupfs.js';
import { allOf, cgroupsPart, containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { startStaticPodKubelet, until as waitUntil, type StaticPodKubelet } from '../support/daemon.js';
import { runningStaticPod, staticPodView } from '../support/debug-pods.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-qos';
let ROOT = '';
const MiB = 2 ** 20;


let k: StaticPodKubelet;
let layout: CgroupLayout;
let cgroups: Cgroupfs;
const until = <T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 30_000) => waitUntil(what, probe, ms, () => k.stderr());

const manifest = (name: string, resources: object | undefined, command: string, extra: object = {}) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { terminationGracePeriodSeconds: 2, ...extra, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', command], ...(resources ? { resources } : {}) }] },
});
const looping = SLEEP_UNTIL_TERM;

const byName = (name: string) => staticPodView(k.debug, name, NODE);
const running = (name: string) => runningStaticPod(k.debug, name, NODE);

/** A cgroup file under the private root (`path` below it), in the controller's hierarchy on v1. */
function cgroupFile(controller: string, path: string, file: string): string {
  const mount = layout.version === 'v2' ? layout.unifiedRoot : layout.controllers.get(controller)!;
  return readFileSync(join(mount, ROOT, path, file), 'utf8').trim();
}

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];

for (const rt of RUNTIMES) describeNeeding(allOf(partForEndpoint(rt.endpoint), cgroupsPart()), `QoS and pod cgroups on the ${rt.name} runtime`, () => {
  beforeAll(async () => {
    ROOT = `/kts-e2e-qos-${rt.name}-${process.pid}`;
    layout = await detectCgroupLayout();
    cgroups = new Cgroupfs(layout);
    await cgroups.create(ROOT, {});
    k = await startStaticPodKubelet({
      endpoint: rt.endpoint, nodeName: NODE, prefix: 'kts-qos-',
      config: ['cgroupsPerQOS: true', `cgroupRoot: ${ROOT}`, 'cgroupDriver: cgroupfs'],
      // This suite is the one whose kubelet makes cgroups (vitest.config.ts turns them off for the others).
      env: { KUBELET_TS_NO_QOS_CGROUPS: '' },
    });
    writeFileSync(join(k.manifests, 'guaranteed.json'), manifest('guaranteed', { limits: { cpu: '200m', memory: '64Mi' }, requests: { cpu: '200m', memory: '64Mi' } }, looping));
    writeFileSync(join(k.manifests, 'burstable.json'), manifest('burstable', { requests: { cpu: '100m' }, limits: { memory: '48Mi' } }, looping));
    writeFileSync(join(k.manifests, 'besteffort.json'), manifest('besteffort', undefined, looping));
  }, 60_000);

  afterAll(async () => {
    await k?.dispose((name) => name.endsWith(`-${NODE}`));
    await cgroups?.destroy(ROOT);
  }, 60_000);

  it('caps kubepods at the node allocatable and gives besteffort the minimum shares', async () => {
    await until('the QoS cgroups', async () => (await cgroups.exists(`${ROOT}/kubepods/besteffort`)) && (await cgroups.exists(`${ROOT}/kubepods/burstable`)));
    const memTotal = Number(/MemTotal:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    const kubepods = await cgroups.read(`${ROOT}/kubepods`);
    // The kernel keeps a v1 limit in whole pages.
    expect(Math.abs(kubepods.memoryLimitBytes! - memTotal)).toBeLessThan(4096);
    // A cgroup is made, then its values are written (cgroupfs.ts create): the test may look in between.
    const besteffort = await until('besteffort\'s cpu.shares written', async () => {
      const read = await cgroups.read(`${ROOT}/kubepods/besteffort`);
      return read.cpuShares === 2 ? read : undefined;
    }, 10_000);
    expect(besteffort.cpuShares).toBe(2);
  });

  it('puts each pod in its QoS class cgroup with Go\'s values, and its containers below it', async () => {
    const g = await until('guaranteed running', () => running('guaranteed'));
    const b = await until('burstable running', () => running('burstable'));
    const be = await until('besteffort running', () => running('besteffort'));
    expect(await cgroups.read(`${ROOT}/kubepods/pod${g.uid}`)).toMatchObject({ cpuShares: 204, cpuQuota: 20_000, cpuPeriod: 100_000, memoryLimitBytes: 64 * MiB });
    expect(await cgroups.read(`${ROOT}/kubepods/burstable/pod${b.uid}`)).toMatchObject({ cpuShares: 102, cpuQuota: -1, memoryLimitBytes: 48 * MiB });
    expect((await cgroups.read(`${ROOT}/kubepods/besteffort/pod${be.uid}`)).cpuShares).toBe(2);
    if (layout.version === 'v1') expect(cgroupFile('cpu', `kubepods/pod${g.uid}`, 'cpu.cfs_quota_us')).toBe('20000');
    // The sandbox named the pod cgroup as its parent: the runtime made the containers' cgroups in it.
    for (const path of [`kubepods/pod${g.uid}`, `kubepods/burstable/pod${b.uid}`, `kubepods/besteffort/pod${be.uid}`]) {
      expect((await cgroups.children(`${ROOT}/${path}`)).length).toBeGreaterThan(0);
    }
    // The burstable shares count the Burstable pods' cpu requests.
    await until('burstable shares of 100m', async () => (await cgroups.read(`${ROOT}/kubepods/burstable`)).cpuShares === 102, 70_000);
  }, 90_000);

  it('reports a container that allocates past its memory limit as OOMKilled', async () => {
    writeFileSync(join(k.manifests, 'oom.json'), manifest('oom', { requests: { memory: '16Mi' }, limits: { memory: '16Mi' } },
      'x=$(head -c 200m /dev/zero | tr "\\0" a); echo survived', { restartPolicy: 'Never' }));
    const terminated = await until('oom terminated', async () => (await byName('oom'))?.status?.containerStatuses?.[0]?.state?.terminated);
    expect(terminated).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
  }, 40_000);

  it('removes the pod cgroups once the pods are gone', async () => {
    const uids = await Promise.all(['guaranteed', 'burstable', 'besteffort', 'oom'].map(async (n) => (await byName(n))!.uid));
    for (const name of ['guaranteed', 'burstable', 'besteffort', 'oom']) unlinkSync(join(k.manifests, `${name}.json`));
    await until('the pod cgroups gone', async () => {
      for (const uid of uids) {
        for (const parent of ['kubepods', 'kubepods/burstable', 'kubepods/besteffort']) if (await cgroups.exists(`${ROOT}/${parent}/pod${uid}`)) return false;
      }
      return true;
    }, 30_000);
    expect(await cgroups.exists(`${ROOT}/kubepods/burstable`)).toBe(true);
  }, 40_000);
});
