/**
 * The kubelet server and read-only port of the real binary, over a running pod on the embedded
 * runtime: /pods, /metrics tracking reality, /containerLogs, /configz; 401 without credentials.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, httpsGet, removePods, until } from '../support/daemon.js';

const BIN = resolve('dist/src/bin/kubelet.js');
let dir: string;
let daemon: ChildProcess;
let stderr = '';
let port = 0;
let readOnlyPort = 0;


const https = (path: string) => httpsGet(port, path);


beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kts-server-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(join(dir, 'manifests', 'web.json'), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do echo served-line; sleep 1 & wait $!; done"] }] },
  }));
  port = await freePort();
  readOnlyPort = await freePort();
  writeFileSync(join(dir, 'kubelet.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${join(dir, 'manifests')}`, `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded',
    'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
    'address: 127.0.0.1', `port: ${port}`, `readOnlyPort: ${readOnlyPort}`, 'healthzPort: 0', '',
  ].join('\n'));
  daemon = spawn(process.execPath, [BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`, '--debug-address=', '--hostname-override=node-s'], { stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await until('the pod running', async () => (await https('/pods')).body.includes('"running"'), 50_000);
}, 60_000);

afterAll(async () => {
  const exited = new Promise((r) => daemon.once('exit', r));
  daemon.kill('SIGTERM');
  await exited;
  await removePods({ endpoint: 'embedded', rootDir: join(dir, 'root') });
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the kubelet server of the real binary', () => {
  it('serves /pods over TLS as a PodList with the pod and its status', async () => {
    const r = await https('/pods');
    expect(r.status).toBe(200);
    const list = JSON.parse(r.body) as { kind: string; items: { metadata: { name: string }; status: { phase: string } }[] };
    expect(list.kind).toBe('PodList');
    expect(list.items.map((p) => [p.metadata.name, p.status.phase])).toEqual([['web-node-s', 'Running']]);
  });

  it('serves /metrics on the read-only port, tracking the running pod', async () => {
    const text = await (await fetch(`http://127.0.0.1:${readOnlyPort}/metrics`)).text();
    expect(text).toMatch(/^kubelet_running_pods 1$/m);
    expect(text).toMatch(/^kubelet_running_containers\{container_state="running"\} 1$/m);
    expect(text).toMatch(/^kubelet_runtime_operations_total\{operation_type="run_podsandbox"\} [1-9]/m);
    expect(text).toMatch(/^kubelet_pleg_relist_duration_seconds_count [1-9]/m);
    expect(text).toMatch(/^kubelet_started_pods_total 1$/m);
  });

  it('serves the container log and /configz', async () => {
    const logs = await https('/containerLogs/default/web-node-s/main?tailLines=1');
    expect(logs.status).toBe(200);
    expect(logs.body).toBe('served-line\n');
    const configz = JSON.parse((await https('/configz')).body) as { kubeletconfig: { port: number } };
    expect(configz.kubeletconfig.port).toBe(port);
  });

  it('answers 404 for an unknown pod and 400 for a bad query', async () => {
    expect((await https('/containerLogs/default/nope/main')).status).toBe(404);
    expect((await https('/containerLogs/default/web-node-s/main?tailLines=abc')).status).toBe(400);
  });
});
