/**
 * Cluster mode end to end (issue #6): the real binary with --kubeconfig against the test API
 * server on loopback, on the embedded runtime (--embedded-runtime-allow-cluster): it registers its
 * Node and becomes Ready, keeps its Lease, runs a pod created with spec.nodeName and reports it
 * Running, kills it when the pod is deleted and removes it from the API, refuses a pod its Node
 * does not match (Failed through the status subresource, a Warning event), and posts its events.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerdEndpoint, describeNeeding, partForEndpoint } from '../support/real-parts.js';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { removePods, until as waitUntil } from '../support/daemon.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const NODE = 'node-c';

/** The runtimes the cluster scenarios run on: the embedded one, and containerd (skipped without KUBELET_IT_CRI; in CI it must run). */
interface ClusterRuntime { name: string; args: string[]; endpoint: string; outage: boolean }
const RUNTIMES: ClusterRuntime[] = [
  { name: 'embedded', endpoint: 'embedded', args: ['--embedded-runtime-allow-cluster'], outage: true },
  { name: 'containerd', endpoint: containerdEndpoint(), args: [], outage: false },
];
let dir: string;
let api: TestApiServer;
let daemon: ChildProcess;
let stderr = '';
let exited: Promise<unknown> | null = null;

type Obj = { metadata: { name: string; uid?: string; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[] }; status?: Record<string, unknown>; spec?: Record<string, unknown> };

const get = (res: 'nodes' | 'leases' | 'pods', ns: string | undefined, name: string) => api.store.get(res, ns, name) as unknown as Obj | undefined;
type PostedEvent = { type?: string; reason?: string; message?: string; source?: object; involvedObject?: { uid?: string; fieldPath?: string } };
/** The events posted about the pod with this uid. */
const webEvents = (uid: string | undefined) => (api.store.list('events', {}).items as unknown as PostedEvent[]).filter((e) => uid !== undefined && e.involvedObject?.uid === uid);
const ready = (node: Obj | undefined) => ((node?.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready')?.status;

for (const rt of RUNTIMES) describeNeeding(partForEndpoint(rt.endpoint), `on the ${rt.name} runtime`, () => {
  beforeAll(async () => {
    stderr = '';
    exited = null;
    dir = mkdtempSync(join(tmpdir(), 'kts-cluster-'));
    api = await startTestApiServer();
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'static.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static' },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"] }] },
    }));
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
      `staticPodPath: ${join(dir, 'manifests')}`,
      `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${rt.endpoint}`,
      'enableServer: false', 'healthzPort: 0', '',
    ].join('\n'));
    daemon = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`, `--root-dir=${join(dir, 'root')}`,
      ...rt.args, '--debug-address=', `--hostname-override=${NODE}`,
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    daemon.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  }, 30_000);

  function stopDaemon() {
    exited ??= new Promise((r) => {
      if (daemon.exitCode !== null) r(daemon.exitCode);
      else daemon.once('exit', r);
    });
    daemon.kill('SIGTERM');
    return exited;
  }

  afterAll(async () => {
    await stopDaemon();
    await api.close();
    await removePods({ endpoint: rt.endpoint, rootDir: join(dir, 'root'), select: (n) => n.endsWith(`-${NODE}`) || n === 'web' || n === 'during' });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  describe('cluster mode against an API server', () => {
    it('registers its Node and reports it Ready', async () => {
      const node = await waitUntil('Node Ready', () => (ready(get('nodes', undefined, NODE)) === 'True' ? get('nodes', undefined, NODE) : undefined));
      expect(node.metadata.name).toBe(NODE);
      expect((node as unknown as { metadata: { labels: Record<string, string> } }).metadata.labels['kubernetes.io/hostname']).toBe(NODE);
    });

    it('keeps a Lease owned by its Node', async () => {
      const lease = await waitUntil('the Lease', () => get('leases', 'kube-node-lease', NODE));
      expect(lease.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: NODE });
      expect((lease.spec as { holderIdentity?: string }).holderIdentity).toBe(NODE);
    });

    it('runs a pod created with spec.nodeName and reports it Running through the status subresource', async () => {
      api.store.create('pods', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
        spec: { nodeName: NODE, terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"] }] },
      } as never, 'default');
      const pod = await waitUntil('web Running', () => {
        const p = get('pods', 'default', 'web');
        return p?.status?.phase === 'Running' ? p : undefined;
      });
      const statuses = (pod.status?.containerStatuses ?? []) as { name: string; ready: boolean; state: { running?: object } }[];
      expect(statuses[0]).toMatchObject({ name: 'main', ready: true });
      expect(statuses[0]?.state.running).toBeDefined();
    }, 40_000);

    it('posts the container\'s Pulled, Created and Started events as Go does, against spec.containers{main}', async () => {
      const uid = get('pods', 'default', 'web')?.metadata.uid;
      const seen = await waitUntil('web\'s Started event', () => {
        const mine = webEvents(uid);
        return mine.some((e) => e.reason === 'Started') ? mine : undefined;
      });
      expect(seen.map((e) => `${e.type} ${e.reason}: ${e.message}`)).toEqual(expect.arrayContaining([
        'Normal Pulled: Container image "kubelet-ts.local/busybox:1.0" already present on machine',
        'Normal Created: Created container main',
        'Normal Started: Started container main',
      ]));
      for (const e of seen) {
        expect(e.involvedObject).toMatchObject({ kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: 'web', uid, fieldPath: 'spec.containers{main}' });
        expect(e.source).toEqual({ component: 'kubelet', host: NODE });
      }
    }, 40_000);

    it('kills the pod when it is deleted, then removes it from the API, and posts its Killing event', async () => {
      const uid = get('pods', 'default', 'web')?.metadata.uid;
      api.store.delete('pods', 'default', 'web', { gracePeriodSeconds: 2 });
      expect(get('pods', 'default', 'web')?.metadata.deletionTimestamp).toBeDefined();
      await waitUntil('web removed', () => get('pods', 'default', 'web') === undefined, 30_000);
      const killing = await waitUntil('web\'s Killing event', () => webEvents(uid).find((e) => e.reason === 'Killing'));
      expect(killing).toMatchObject({ type: 'Normal', message: 'Stopping container main', involvedObject: { fieldPath: 'spec.containers{main}' } });
    }, 40_000);

    it('creates a mirror pod for its static pod, with the static pod\'s status', async () => {
      const mirror = await waitUntil('the mirror pod Running', () => {
        const p = get('pods', 'default', `static-${NODE}`) as (Obj & { metadata: { annotations?: Record<string, string> } }) | undefined;
        return p?.status?.phase === 'Running' ? p : undefined;
      });
      expect(mirror.metadata.annotations?.['kubernetes.io/config.mirror']).toBeTruthy();
      expect(mirror.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: NODE });
    }, 40_000);

    // The outage scenario runs once, on the embedded runtime: it is about the API side, and it takes 60 s.
    if (rt.outage) it('rides out a 60 s API server outage: pods keep running, lease and status resume, a pod created meanwhile is picked up', async () => {
      const leaseBefore = (get('leases', 'kube-node-lease', NODE)?.spec as { renewTime?: string } | undefined)?.renewTime;
      // The fault closes the watches and the listener before its first await, so the pod below is
      // created with no watch open: only the resumed watch (or relist) can find it.
      const outage = api.faults.refuseConnections(60_000);
      api.store.create('pods', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'during', namespace: 'default' },
        spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"] }] },
      } as never, 'default');
      await outage;
      const back = Date.now();
      expect(daemon.exitCode).toBeNull();
      await waitUntil('the lease renewed after the outage', () => {
        const renew = (get('leases', 'kube-node-lease', NODE)?.spec as { renewTime?: string } | undefined)?.renewTime;
        return renew !== undefined && renew !== leaseBefore && Date.parse(renew) >= back - 1000 ? renew : undefined;
      }, 15_000);
      const leaseAfterMs = Date.now() - back;
      await waitUntil('the pod created during the outage Running', () => get('pods', 'default', 'during')?.status?.phase === 'Running', 30_000);
      const podAfterMs = Date.now() - back;
      expect(ready(get('nodes', undefined, NODE))).toBe('True');
      // The static pod ran through the outage without a restart (its mirror pod says so).
      const mirror = get('pods', 'default', `static-${NODE}`);
      const cs = ((mirror?.status?.containerStatuses ?? []) as { restartCount: number; state: { running?: object } }[])[0];
      expect(cs?.state.running).toBeDefined();
      expect(cs?.restartCount).toBe(0);
      // Within one lease period of the return; the new pod within a few seconds (Go: 21–38 s).
      expect(leaseAfterMs).toBeLessThan(11_000);
      expect(podAfterMs).toBeLessThan(15_000);
      process.stderr.write(`outage recovery: lease renewed ${leaseAfterMs} ms, new pod Running ${podAfterMs} ms after the API server returned\n`);
    }, 120_000);

    it('refuses a pod whose nodeSelector its Node lacks: Failed with NodeAffinity through the status subresource, and a Warning event', async () => {
      api.store.create('pods', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'picky', namespace: 'default' },
        spec: { nodeName: NODE, nodeSelector: { disktype: 'ssd' }, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', 'sleep 3600'] }] },
      } as never, 'default');
      const pod = await waitUntil('picky Failed', () => {
        const p = get('pods', 'default', 'picky');
        return p?.status?.phase === 'Failed' ? p : undefined;
      });
      expect(pod.status).toMatchObject({ reason: 'NodeAffinity', message: "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" });
      const event = await waitUntil('the Warning event', () => {
        const list = api.store.list('events', {}).items as unknown as { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string; name?: string; uid?: string } }[];
        return list.find((e) => e.reason === 'NodeAffinity' && e.involvedObject?.name === 'picky');
      });
      expect(event).toMatchObject({ type: 'Warning', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector", involvedObject: { kind: 'Pod', uid: pod.metadata.uid } });
      api.store.delete('pods', 'default', 'picky', { gracePeriodSeconds: 0 });
    }, 40_000);

    it('posts its events (Starting) to the API server', async () => {
      const events = await waitUntil('a Starting event', () => {
        const list = api.store.list('events', {}).items as unknown as { reason?: string; involvedObject?: { kind?: string; name?: string } }[];
        return list.find((e) => e.reason === 'Starting' && e.involvedObject?.name === NODE) ? list : undefined;
      });
      expect(events.length).toBeGreaterThan(0);
    });

    it('stops cleanly and leaves a journal that replays identically, API answers and watch events included', async () => {
      expect(await stopDaemon()).toBe(0);
      const r = spawnSync(process.execPath, [BIN, 'replay', join(dir, 'root', 'events', 'latest.jsonl')], { encoding: 'utf8' });
      expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
      expect(r.status).toBe(0);
    }, 30_000);
  });
});
