/**
 * Cluster mode against the test API server (test/apiserver/), for what a real API server cannot be
 * made to do on demand: a 60 s outage in the middle of the kubelet's watches and lease renewals, with
 * a pod created while it lasts; and the journal of that run replaying identically, the API answers
 * and watch events included. Registration, the Lease, API pods and their status, events, mirror pods,
 * admission refusals and deletion run on the real control plane (real-cluster-mode.e2e.test.ts).
 * On the embedded runtime (--embedded-runtime-allow-cluster): the scenario is about the API side.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';
import { removePods, until as waitUntil } from '../support/daemon.js';
import { KUBELET_BIN as BIN, runKubeletCommand } from '../support/kubelet-bin.js';
import { SLEEP_UNTIL_TERM } from '../support/sleeper.js';

const NODE = 'node-c';

const ENDPOINT = 'embedded';
let dir: string;
let api: TestApiServer;
let daemon: ChildProcess;
let stderr = '';
let exited: Promise<unknown> | null = null;

type Obj = { metadata: { name: string; uid?: string; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[] }; status?: Record<string, unknown>; spec?: Record<string, unknown> };

const get = (res: 'nodes' | 'leases' | 'pods', ns: string | undefined, name: string) => api.store.get(res, ns, name) as unknown as Obj | undefined;
const ready = (node: Obj | undefined) => ((node?.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready')?.status;

describe('cluster mode against the test API server, embedded runtime', () => {
  beforeAll(async () => {
    stderr = '';
    exited = null;
    dir = mkdtempSync(join(tmpdir(), 'kts-cluster-'));
    api = await startTestApiServer();
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'static.json'), JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static' },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] }] },
    }));
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
      `staticPodPath: ${join(dir, 'manifests')}`,
      `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${ENDPOINT}`,
      'enableServer: false', 'healthzPort: 0', '',
    ].join('\n'));
    daemon = spawn(process.execPath, [
      BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`,
      '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${NODE}`,
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
    await removePods({ endpoint: ENDPOINT, rootDir: join(dir, 'root'), select: (n) => n.endsWith(`-${NODE}`) || n === 'during' });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('comes up: its Node Ready, its Lease held, its static pod\'s mirror pod Running', async () => {
    const node = await waitUntil('Node Ready', () => (ready(get('nodes', undefined, NODE)) === 'True' ? get('nodes', undefined, NODE) : undefined));
    expect(node.metadata.name).toBe(NODE);
    await waitUntil('the Lease', () => get('leases', 'kube-node-lease', NODE));
    await waitUntil('the mirror pod Running', () => get('pods', 'default', `static-${NODE}`)?.status?.phase === 'Running');
  }, 40_000);

  it('rides out a 60 s API server outage: pods keep running, lease and status resume, a pod created meanwhile is picked up', async () => {
    const leaseBefore = (get('leases', 'kube-node-lease', NODE)?.spec as { renewTime?: string } | undefined)?.renewTime;
    // The fault closes the watches and the listener before its first await, so the pod below is
    // created with no watch open: only the resumed watch (or relist) can find it.
    const outage = api.faults.refuseConnections(60_000);
    api.store.create('pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'during', namespace: 'default' },
      spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', SLEEP_UNTIL_TERM] }] },
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

  it('stops cleanly and leaves a journal that replays identically, API answers and watch events included', async () => {
    expect(await stopDaemon()).toBe(0);
    const r = runKubeletCommand('replay', [join(dir, 'root', 'events', 'latest.jsonl')]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 30_000);
});
