/**
 * A runtime outage as the Go kubelet rides it (issue 14 item 11): containerd stopped while the
 * kubelet runs in cluster mode, down through two failed Status checks (5–10 s), then started again.
 * The Node must stay Ready throughout (Go calls the runtime down only after 30 s without a good
 * Status), and a pod created right after containerd is back must run within a second of its return.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../apiserver/index.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { startContainerd, stopContainerd } from '../support/containerd-lab.js';
import { removePods, until } from '../support/daemon.js';
import { containerdEndpoint, containerdPart, describeNeeding } from '../support/real-parts.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

const NODE = 'node-outage';
const LOOP = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";

type Conditions = { status?: { conditions?: { type: string; status: string }[]; phase?: string } };
const readyOf = (o: KubeObject | undefined) => (o as Conditions | undefined)?.status?.conditions?.find((c) => c.type === 'Ready')?.status;

describeNeeding(containerdPart(), 'a 10 s containerd outage in cluster mode', () => {
  let dir: string;
  let api: TestApiServer;
  let kubelet: ChildProcess;
  let stderr = '';
  const lab = process.env.KUBELET_IT_CRI_LAB ?? '';
  const socket = containerdEndpoint().replace(/^unix:\/\//, '');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kts-outage-'));
    api = await startTestApiServer();
    writeFileSync(join(dir, 'kubelet.yaml'), [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
      `podLogsDir: ${join(dir, 'logs')}`, `containerRuntimeEndpoint: ${containerdEndpoint()}`, 'enableServer: false', 'healthzPort: 0', '',
    ].join('\n'));
    kubelet = spawn(process.execPath, [BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--kubeconfig=${api.kubeconfigPath(dir)}`,
      `--root-dir=${join(dir, 'root')}`, '--debug-address=', `--hostname-override=${NODE}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    kubelet.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await until('the Node Ready', () => readyOf(api.store.get('nodes', undefined, NODE)) === 'True', 60_000, () => stderr);
  }, 90_000);

  afterAll(async () => {
    const exited = new Promise((r) => (kubelet.exitCode !== null ? r(null) : kubelet.once('exit', r)));
    kubelet.kill('SIGTERM');
    await exited;
    await api.close();
    await removePods({ endpoint: containerdEndpoint(), rootDir: join(dir, 'root'), select: (n) => n.endsWith(`-${NODE}`) || n === 'after' });
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('keeps the Node Ready, and runs a pod created after the return within a second of it', async () => {
    const readiness: string[] = [];
    const unsubscribe = api.store.subscribe((change) => {
      if (change.storage === 'nodes' && change.object.metadata?.name === NODE) readiness.push(readyOf(change.object) ?? '?');
    });
    const journal = () => readJournal(join(dir, 'root', 'events', 'latest.jsonl')).records;
    const failedChecks = () => journal()
      .filter((r) => r.name === 'xstate.done.actor.checkRuntime' && (r.payload as { output?: { ok?: boolean } }).output?.ok === false).length;

    await stopContainerd(lab);
    // Down until the kubelet has seen two Status calls fail (its checks run every 5 s).
    await until('two failed runtime checks', () => failedChecks() >= 2, 30_000, () => stderr);
    await startContainerd(lab, socket);
    const back = Date.now();
    api.store.create('pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'after', namespace: 'default' },
      spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: process.env.KUBELET_IT_CRI_IMAGE ?? 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', LOOP] }] },
    } as never, 'default');
    await until('the pod created after the return Running', () => (api.store.get('pods', 'default', 'after') as Conditions | undefined)?.status?.phase === 'Running', 30_000, () => stderr);
    const runningAfterMs = Date.now() - back;
    unsubscribe();

    process.stderr.write(`runtime outage: Node Ready throughout (${readiness.length} node updates), pod Running ${runningAfterMs} ms after containerd returned\n`);
    // The Node is patched only on a change (the Lease says the node is alive): none may be NotReady,
    // the kubelet must never have called its runtime anything but ready, and the Node ends Ready.
    expect(readiness.filter((r) => r !== 'True')).toEqual([]);
    const healthChanges = journal().filter((r) => r.type === 'event' && r.name === 'runtime.health.changed').map((r) => (r.payload as { health: string }).health);
    expect(healthChanges).toEqual(['ready']);
    expect(readyOf(api.store.get('nodes', undefined, NODE))).toBe('True');
    expect(runningAfterMs).toBeLessThan(1_000);
  }, 120_000);
});
