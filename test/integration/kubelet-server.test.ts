/**
 * The kubelet server and read-only port of the real binary, over a running pod on the embedded
 * runtime: /pods, /metrics and /metrics/probes tracking reality, /containerLogs, /configz, /run,
 * /logs/ (the machine's own /var/log, read-only), and the read-only port's disabled debug handlers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeServerTestConfig } from '../support/server-test-config.js';
import { freePort, httpsGet, httpsRequest, removePods, until } from '../support/daemon.js';
import { parseMetrics, sampleWith } from '../support/prometheus-text.js';
import { KUBELET_BIN as BIN } from '../support/kubelet-bin.js';

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
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [{
        // A line each second until SIGTERM: the log the server serves keeps growing; not a wait of the test's.
        name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', "trap 'exit 0' TERM; while :; do echo served-line; sleep 1 & wait $!; done"],
        readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
      }],
    },
  }));
  port = await freePort();
  readOnlyPort = await freePort();
  writeServerTestConfig(dir, { port, readOnlyPort });
  daemon = spawn(process.execPath, [BIN, `--config=${join(dir, 'kubelet.yaml')}`, `--root-dir=${join(dir, 'root')}`, `--device-plugins-dir=${join(dir, 'root')}/device-plugins`, `--cert-dir=${join(dir, 'pki')}`, '--debug-address=', '--hostname-override=node-s'], { stdio: ['ignore', 'ignore', 'pipe'] });
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

  it('runs a command in the container through the runtime with /run, in both path forms', async () => {
    const post = (path: string) => httpsRequest(port, path, { method: 'POST' });
    expect(await post('/run/default/web-node-s/main?cmd=echo%20run-output')).toMatchObject({ status: 200, body: 'run-output\n' });
    const uid = (JSON.parse((await https('/pods')).body) as { items: { metadata: { uid: string } }[] }).items[0]!.metadata.uid;
    expect(await post(`/run/default/web-node-s/${uid}/main?cmd=echo%20by-uid`)).toMatchObject({ status: 200, body: 'by-uid\n' });
    expect(await post('/run/default/web-node-s/main?cmd=false')).toMatchObject({ status: 500, body: "command 'false' exited with 1: \n" });
    expect((await post('/run/default/nope/main?cmd=true')).status).toBe(404);
    expect((await post('/run/default/web-node-s/nope?cmd=true')).status).toBe(404);
  });

  it('serves the node\'s /var/log read-only under /logs/, refusing a way out', async () => {
    const listing = await https('/logs/');
    expect(listing.status).toBe(200);
    const listed = [...listing.body.matchAll(/<a href="[^"]*">([^<]*)<\/a>/g)].map((m) => m[1]);
    const onDisk = readdirSync('/var/log', { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
    expect([...listed].sort()).toEqual(onDisk);
    expect((await https('/logs/../etc/passwd')).status).toBe(400);
    expect((await https('/logs/%2e%2e/etc/passwd')).status).toBe(400);
  });

  it('answers the debug endpoints on the read-only port with 405, as Go', async () => {
    for (const [method, path] of [['POST', '/run/default/web-node-s/main?cmd=true'], ['GET', '/logs/'], ['GET', '/exec/default/web-node-s/main']] as const) {
      const res = await fetch(`http://127.0.0.1:${readOnlyPort}${path}`, { method });
      expect([res.status, await res.text()], path).toEqual([405, 'Debug endpoints are disabled.\n']);
    }
  });
});

describe('/metrics/probes of the real binary', () => {
  const readiness = { probe_type: 'Readiness', container: 'main', pod: 'web-node-s', namespace: 'default' };
  const successes = async (path = '/metrics/probes') => sampleWith(parseMetrics((await https(path)).body), 'prober_probe_total', { ...readiness, result: 'successful' });

  it('counts the readiness probe\'s attempts as they run, on both ports', async () => {
    const first = await until('a counted readiness probe', successes, 20_000);
    await until('the counter rising with the next attempts', async () => ((await successes()) ?? 0) >= first + 2, 20_000);
    const m = parseMetrics((await https('/metrics/probes')).body);
    expect(sampleWith(m, 'prober_probe_duration_seconds_count', readiness)).toBeGreaterThanOrEqual(first);
    expect(sampleWith(m, 'prober_probe_total', { ...readiness, result: 'failed' })).toBeUndefined();
    const readOnly = parseMetrics(await (await fetch(`http://127.0.0.1:${readOnlyPort}/metrics/probes`)).text());
    expect(sampleWith(readOnly, 'prober_probe_total', { ...readiness, result: 'successful' })).toBeGreaterThanOrEqual(first);
  });

  it('drops the pod\'s series once the pod is removed', async () => {
    expect(await successes()).toBeGreaterThan(0);
    unlinkSync(join(dir, 'manifests', 'web.json'));
    await until('the probe series gone', async () => !(await https('/metrics/probes')).body.includes('prober_probe_total'), 30_000, () => stderr);
    expect((await https('/metrics/probes')).body).toMatch(/^process_start_time_seconds \d/m);
  });
});
