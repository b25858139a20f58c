import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeletApp } from '../../../../src/adapters/http/kubelet-server/server.js';
import { KubeletError } from '../../../../src/domain/errors.js';
import type { MachineInfo } from '../../../../src/domain/node/host-types.js';
import type { SubjectAccessReviewer } from '../../../../src/ports/kubelet-view.js';
import { strictFamilies } from '../../../support/strict-prometheus-text.js';
import { FakeKubeletView, testPod } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

let app: ServedApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const NOW = Date.parse('2024-05-01T10:00:10Z');

function build(view: FakeKubeletView, accessReviewer?: SubjectAccessReviewer) {
  app = serveApp(buildKubeletApp({
    view,
    auth: accessReviewer ? { anonymous: true, authorizationMode: 'Webhook', accessReviewer, nodeName: 'node-a' } : undefined,
    debuggingHandlers: !accessReviewer,
    now: () => NOW,
  }));
  return app;
}

function viewWithPod(): FakeKubeletView {
  const view = new FakeKubeletView();
  const pod = testPod('web');
  pod.status!.containerStatuses![0]!.containerID = 'containerd://c0ffee';
  view.podsList = [pod];
  view.machine = { numCores: 2, memoryCapacityBytes: 8e9, machineId: 'm', systemUuid: 'u', bootId: 'b' } as MachineInfo;
  view.summary = {
    node: { nodeName: 'node-a', startTime: '2024-04-01T00:00:00Z', cpu: { time: '2024-05-01T10:00:00Z', usageCoreNanoSeconds: 9_000_000_000n }, memory: { time: '2024-05-01T10:00:00Z', workingSetBytes: 1000n } },
    pods: [{
      podRef: { name: 'web', namespace: 'default', uid: 'uid-web' },
      startTime: '2024-05-01T09:00:00Z',
      containers: [{ name: 'app', startTime: '2024-05-01T09:00:01Z', cpu: { time: '2024-05-01T10:00:01Z', usageCoreNanoSeconds: 250_000_000n }, memory: { time: '2024-05-01T10:00:01Z', workingSetBytes: 512n } }],
      cpu: { time: '2024-05-01T10:00:01Z', usageCoreNanoSeconds: 250_000_000n },
      memory: { time: '2024-05-01T10:00:01Z', workingSetBytes: 512n },
    }],
  };
  return view;
}

describe('/metrics/resource', () => {
  it('answers Prometheus text from the CPU-and-memory summary', async () => {
    const view = viewWithPod();
    const res = await build(view).inject('/metrics/resource');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const f = strictFamilies(res.body);
    expect(f.get('container_cpu_usage_seconds_total')?.samples[0]).toMatchObject({ labels: { container: 'app', pod: 'web', namespace: 'default' }, value: 0.25 });
    expect(f.get('scrape_error')?.samples[0]?.value).toBe(0);
    expect(view.calls).toContain('statsSummary true');
    expect(view.calls).not.toContain('statsSummary false');
  });

  it.each([
    ['a failed read', new KubeletError('KLT_ERR_STATS_UNAVAILABLE', 'failed to list pod stats: runtime down')],
    ['a refused read', new KubeletError('KLT_ERR_STATS_BUSY', 'too many waiting')],
  ])('answers 200 with scrape_error 1 after %s, not a 500', async (_what, error) => {
    const view = viewWithPod();
    view.summary = error;
    const res = await build(view).inject('/metrics/resource');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^scrape_error 1$/m);
    expect(res.body).toMatch(/^resource_scrape_error 1$/m);
    expect(res.body).not.toContain('container_cpu_usage_seconds_total');
  });
});

describe('/metrics/cadvisor', () => {
  it('labels the container with its runtime id and image from the pod status, and marks it seen now', async () => {
    const res = await build(viewWithPod()).inject('/metrics/cadvisor');
    expect(res.statusCode).toBe(200);
    const f = strictFamilies(res.body);
    const expected = { container: 'app', id: '', image: 'busybox', name: 'c0ffee', namespace: 'default', pod: 'web' };
    expect(f.get('container_memory_working_set_bytes')?.samples.find((s) => s.labels.container === 'app')?.labels).toEqual(expected);
    expect(f.get('container_last_seen')?.samples.find((s) => s.labels.container === 'app')).toMatchObject({ value: NOW / 1000, timestampMs: NOW });
    expect(f.get('machine_cpu_cores')?.samples[0]?.value).toBe(2);
  });

  it('answers 200 with container_scrape_error 1 when the stats cannot be read', async () => {
    const view = viewWithPod();
    view.summary = new Error('boom');
    const res = await build(view).inject('/metrics/cadvisor');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/^container_scrape_error 1$/m);
    expect(res.body).toMatch(/^machine_cpu_cores\{[^}]*\} 2$/m);
  });
});

describe('authorization of the stats metrics', () => {
  it.each(['/metrics/resource', '/metrics/cadvisor'])('authorizes %s as nodes/metrics, as Go does, and serves it on the read-only port too', async (path) => {
    const asked: string[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(`${a.verb} ${a.resource}/${a.subresource}`), { allowed: true }) };
    expect((await build(viewWithPod(), accessReviewer).inject(path)).statusCode).toBe(200);
    expect(asked).toEqual(['get nodes/metrics']);
    await app?.close();
    expect((await build(viewWithPod()).inject(path)).statusCode).toBe(200);
  });

  it('refuses a caller not allowed nodes/metrics', async () => {
    const accessReviewer: SubjectAccessReviewer = { review: async () => ({ allowed: false }) };
    const res = await build(viewWithPod(), accessReviewer).inject('/metrics/resource');
    expect(res.statusCode).toBe(403);
    expect(res.body).toBe('Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[metrics])');
  });
});
