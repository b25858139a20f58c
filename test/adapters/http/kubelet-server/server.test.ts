import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildKubeletApp, type KubeletServerAuth } from '../../../../src/adapters/http/kubelet-server/server.js';
import { KubeletError } from '../../../../src/domain/errors.js';
import type { NodeRequestAttributes, SubjectAccessReviewer, TokenReviewer } from '../../../../src/ports/kubelet-view.js';
import { parseMetrics } from '../../../support/prometheus-text.js';
import { FakeKubeletView, testPod } from './fake-view.js';
import { serveApp, type ServedApp } from './served-app.js';

let app: ServedApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function build(view: FakeKubeletView, auth?: Partial<KubeletServerAuth>, debuggingHandlers = true) {
  app = serveApp(buildKubeletApp({
    view,
    auth: auth ? { anonymous: false, authorizationMode: 'AlwaysAllow', nodeName: 'node-a', ...auth } : undefined,
    debuggingHandlers,
    healthChecks: [{ name: 'ping', check: () => null }, { name: 'syncloop', check: () => 'sync Loop took longer than expected' }],
  }));
  return app;
}

describe('kubelet server authentication', () => {
  it('answers 401 Unauthorized to a request without credentials when anonymous is off', async () => {
    const res = await build(new FakeKubeletView(), { anonymous: false }).inject('/pods');
    expect(res.statusCode).toBe(401);
    expect(res.body).toBe('Unauthorized');
  });

  it('serves an anonymous request when anonymous is on and authorization is AlwaysAllow', async () => {
    const res = await build(new FakeKubeletView(), { anonymous: true }).inject('/pods');
    expect(res.statusCode).toBe(200);
  });

  it('answers 401 to a bearer token when there is no TokenReviewer, even with anonymous on', async () => {
    const res = await build(new FakeKubeletView(), { anonymous: true }).inject({ url: '/pods', headers: { authorization: 'Bearer abc' } });
    expect(res.statusCode).toBe(401);
  });

  it('authenticates a bearer token through the TokenReviewer and refuses one it rejects', async () => {
    const seen: NodeRequestAttributes[] = [];
    const tokenReviewer: TokenReviewer = {
      review: async (t) => (t === 'good' ? { authenticated: true, user: { name: 'alice', groups: ['devs'] } } : { authenticated: false }),
    };
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (seen.push(a), { allowed: true }) };
    const a = build(new FakeKubeletView(), { tokenReviewer, accessReviewer, authorizationMode: 'Webhook' });
    expect((await a.inject({ url: '/metrics', headers: { authorization: 'Bearer good' } })).statusCode).toBe(200);
    expect(seen[0]).toMatchObject({ user: { name: 'alice', groups: ['devs', 'system:authenticated'] }, verb: 'get', subresource: 'metrics', name: 'node-a' });
    expect((await a.inject({ url: '/metrics', headers: { authorization: 'Bearer bad' } })).statusCode).toBe(401);
  });
});

describe('kubelet server authorization (Webhook)', () => {
  it('answers 403 with Go\'s wording when no attribute set is allowed', async () => {
    const asked: string[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a.subresource), { allowed: false, reason: 'no RBAC' }) };
    const res = await build(new FakeKubeletView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject('/pods');
    expect(res.statusCode).toBe(403);
    expect(res.body).toBe('Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[pods proxy])');
    expect(asked).toEqual(['pods', 'proxy']);
  });

  it('allows a request when the proxy fallback is allowed', async () => {
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => ({ allowed: a.subresource === 'proxy' }) };
    const res = await build(new FakeKubeletView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject('/configz');
    expect(res.statusCode).toBe(200);
  });

  it('answers 500 naming the attributes when the review fails', async () => {
    const accessReviewer: SubjectAccessReviewer = { review: async () => { throw new Error('apiserver down'); } };
    const res = await build(new FakeKubeletView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject({ method: 'POST', url: '/exec/a/b/c' });
    expect(res.statusCode).toBe(500);
    expect(res.body).toBe('Authorization error (user=system:anonymous, verb=create, resource=nodes, subresource=proxy)');
  });
});

describe('kubelet server endpoints', () => {
  it('serves /pods as a v1 PodList that follows the view', async () => {
    const view = new FakeKubeletView();
    view.podsList = [testPod('web')];
    const a = build(view);
    const res = await a.inject('/pods');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const list = JSON.parse(res.body);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1', items: [{ metadata: { name: 'web', namespace: 'default' } }] });
    view.podsList = [];
    expect(JSON.parse((await a.inject('/pods')).body).items).toEqual([]);
  });

  it('serves /runningpods/ with minimal pods', async () => {
    const view = new FakeKubeletView();
    view.podsList = [testPod('web')];
    const list = JSON.parse((await build(view).inject('/runningpods/')).body);
    expect(list.items).toEqual([{ metadata: { name: 'web', namespace: 'default', uid: 'uid-web' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } }]);
  });

  it('serves /configz from the view', async () => {
    const res = await build(new FakeKubeletView()).inject('/configz');
    expect(JSON.parse(res.body)).toEqual({ kubeletconfig: { kind: 'KubeletConfiguration', staticPodURLHeader: { A: ['<masked>'] } } });
  });

  it('serves /metrics in the Prometheus text format, tracking the view', async () => {
    const view = new FakeKubeletView();
    const a = build(view);
    view.snapshot = { ...view.snapshot, runningPods: 1, runningContainers: { running: 2 }, plegRelistDurationsMs: [3], startedPods: 1 };
    let res = await a.inject('/metrics');
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    let m = parseMetrics(res.body);
    expect(m.get('kubelet_running_pods')).toBe(1);
    expect(m.get('kubelet_running_containers{container_state="running"}')).toBe(2);
    expect(m.get('kubelet_pleg_relist_duration_seconds_count')).toBe(1);
    expect(m.get('kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"}')).toBe(1);
    view.snapshot = { ...view.snapshot, runningPods: 3, plegRelistDurationsMs: [3, 7], startedPods: 4 };
    m = parseMetrics((res = await a.inject('/metrics')).body);
    expect(m.get('kubelet_running_pods')).toBe(3);
    expect(m.get('kubelet_started_pods_total')).toBe(4);
    expect(m.get('kubelet_pleg_relist_duration_seconds_count')).toBe(2);
  });

  it('delegates /healthz to the health checks', async () => {
    const a = build(new FakeKubeletView());
    const all = await a.inject('/healthz');
    expect(all.statusCode).toBe(500);
    expect(all.body).toContain('[-]syncloop failed');
    const ping = await a.inject('/healthz/ping');
    expect([ping.statusCode, ping.body]).toEqual([200, 'ok']);
  });

  it('answers unknown paths with Go\'s 404 body', async () => {
    const res = await build(new FakeKubeletView()).inject('/nope');
    expect([res.statusCode, res.body]).toEqual([404, '404 page not found\n']);
  });
});

describe('kubelet server methods and URLs', () => {
  it('answers HEAD on a GET path with its head and no body', async () => {
    const get = await build(new FakeKubeletView()).inject('/pods');
    const head = await app!.inject({ method: 'HEAD', url: '/pods' });
    expect([head.statusCode, head.headers['content-type'], head.headers['content-length'], head.body])
      .toEqual([200, get.headers['content-type'], String(Buffer.byteLength(get.body)), '']);
  });

  it.each([['POST', '/pods'], ['DELETE', '/metrics'], ['PUT', '/stats/summary'], ['POST', '/containerLogs/default/web/app']])(
    'answers %s %s, a path served for other methods, with 405 as go-restful does', async (method, url) => {
      const res = await build(new FakeKubeletView()).inject({ method, url });
      expect([res.statusCode, res.body]).toEqual([405, '405: Method Not Allowed\n']);
    },
  );

  it('answers a URL that does not decode with 400, before authentication', async () => {
    const res = await build(new FakeKubeletView(), { anonymous: false }).inject('/pods%zz');
    expect([res.statusCode, res.body]).toEqual([400, "'/pods%zz' is not a valid url component\n"]);
  });

  it('routes the decoded path', async () => {
    expect((await build(new FakeKubeletView()).inject('/%70ods')).statusCode).toBe(200);
  });

  it('answers 500 Internal Server Error, logged, when a handler fails', async () => {
    const view = new FakeKubeletView();
    view.pods = () => { throw new Error('view broke'); };
    const lines: string[] = [];
    app = serveApp(buildKubeletApp({ view, debuggingHandlers: true, logger: pino({}, { write: (s: string) => void lines.push(s) }) }));
    const res = await app.inject('/pods');
    expect([res.statusCode, res.body]).toEqual([500, 'Internal Server Error\n']);
    expect(lines.join('')).toContain('view broke');
    expect((await app.inject('/metrics')).statusCode).toBe(200);
  });
});

describe('read-only server routes', () => {
  it('serves /pods, /metrics and /healthz without auth', async () => {
    const a = build(new FakeKubeletView(), undefined, false);
    expect((await a.inject('/pods')).statusCode).toBe(200);
    expect((await a.inject('/metrics')).statusCode).toBe(200);
    expect((await a.inject('/healthz/ping')).statusCode).toBe(200);
  });

  it.each(['/containerLogs/default/web/app', '/runningpods/', '/exec/a/b/c', '/logs/'])('answers %s with 405: debug endpoints are disabled', async (url) => {
    const res = await build(new FakeKubeletView(), undefined, false).inject(url);
    expect([res.statusCode, res.body]).toEqual([405, 'Debug endpoints are disabled.\n']);
  });

  it('has no /configz', async () => {
    expect((await build(new FakeKubeletView(), undefined, false).inject('/configz')).statusCode).toBe(404);
  });
});

describe('kubelet server bounds', () => {
  it('bounds request time, idle keep-alive and silent connections', () => {
    const a = build(new FakeKubeletView());
    expect(a.server.requestTimeout).toBe(60_000);
    expect(a.server.keepAliveTimeout).toBe(90_000);
    expect(a.server.timeout).toBe(300_000);
  });

  it('refuses a body over 64 KiB', async () => {
    const res = await build(new FakeKubeletView()).inject({ method: 'POST', url: '/pods', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ a: 'x'.repeat(70 * 1024) }) });
    expect(res.statusCode).toBe(413);
  });

  it('refuses headers over 64 KiB', async () => {
    const a = build(new FakeKubeletView());
    expect((await a.inject({ url: '/pods', headers: { 'x-big': 'x'.repeat(60 * 1024) } })).statusCode).toBe(200);
    expect((await a.inject({ url: '/pods', headers: { 'x-big': 'x'.repeat(70 * 1024) } })).statusCode).toBe(431);
  });

  it('authorizes the decoded path, as Go reads r.URL.Path', async () => {
    const asked: string[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a.path), { allowed: true }) };
    await build(new FakeKubeletView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject('/%70ods?x=1');
    expect(asked[0]).toBe('/pods');
  });
});

describe('the kubelet server\'s renderings', () => {
  it('renders the PodList once per pod list the view answers', async () => {
    const view = new FakeKubeletView();
    view.podsList = [testPod('web')];
    const a = build(view);
    const first = (await a.inject('/pods')).body;
    // Changed in place, which the view port rules out: the server shows it kept the first rendering.
    view.podsList.push(testPod('db'));
    expect((await a.inject('/pods')).body).toBe(first);
    view.podsList = [testPod('web'), testPod('db')];
    expect(JSON.parse((await a.inject('/pods')).body).items).toHaveLength(2);
  });
});
describe('/metrics/probes', () => {
  it('serves the prober metrics in the Prometheus text format, tracking the view', async () => {
    const view = new FakeKubeletView();
    const a = build(view);
    const series = { probeType: 'Readiness' as const, container: 'app', pod: 'web', namespace: 'default', podUid: 'uid-web', durations: null };
    view.probes = { processStartSeconds: 1_700_000_000, series: [{ ...series, results: { successful: 1 } }] };
    const res = await a.inject('/metrics/probes');
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const key = 'prober_probe_total{container="app",namespace="default",pod="web",pod_uid="uid-web",probe_type="Readiness",result="successful"}';
    expect(parseMetrics(res.body).get(key)).toBe(1);
    view.probes = { ...view.probes, series: [{ ...series, results: { successful: 4 } }] };
    expect(parseMetrics((await a.inject('/metrics/probes')).body).get(key)).toBe(4);
    view.probes = { ...view.probes, series: [] };
    expect([...parseMetrics((await a.inject('/metrics/probes')).body).keys()]).toEqual(['process_start_time_seconds']);
  });

  it('is authorized as nodes/metrics and served on the read-only port too', async () => {
    const asked: string[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a.subresource), { allowed: true }) };
    expect((await build(new FakeKubeletView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject('/metrics/probes')).statusCode).toBe(200);
    expect(asked).toEqual(['metrics']);
    await app?.close();
    expect((await build(new FakeKubeletView(), undefined, false).inject('/metrics/probes')).statusCode).toBe(200);
  });
});

describe('/run', () => {
  it('runs the command in the running container and answers stdout then stderr, split on spaces as Go', async () => {
    const view = runView();
    const res = await build(view).inject({ method: 'POST', url: '/run/default/web/app?cmd=ls%20-l%20%2Ftmp' });
    expect([res.statusCode, res.body, res.headers['content-type']]).toEqual([200, 'out\nerr\n', 'application/json']);
    expect(view.execs).toEqual([{ containerId: 'cid-1', cmd: ['ls', '-l', '/tmp'] }]);
  });

  it('takes the pod UID form and answers 404 when the UID is not the pod\'s', async () => {
    const a = build(runView());
    expect((await a.inject({ method: 'POST', url: '/run/default/web/uid-web/app?cmd=true' })).statusCode).toBe(200);
    const res = await a.inject({ method: 'POST', url: '/run/default/web/uid-other/app?cmd=true' });
    expect([res.statusCode, res.body]).toEqual([404, 'pod does not exist\n']);
  });

  it.each([
    ['/run/default/nope/app?cmd=true', 404, 'pod does not exist\n'],
    ['/run/other/web/app?cmd=true', 404, 'pod does not exist\n'],
    ['/run/default/web/sidecar?cmd=true', 404, 'container "sidecar" not found in pod "web"\n'],
    ['/run/default/web/app', 400, 'missing the command to run: ?cmd=\n'],
    ['/run/default/web/app?cmd=', 400, 'missing the command to run: ?cmd=\n'],
  ])('answers POST %s with %i', async (url, status, body) => {
    const view = runView();
    const res = await build(view).inject({ method: 'POST', url });
    expect([res.statusCode, res.body]).toEqual([status, body]);
    expect(view.execs).toEqual([]);
  });

  it('answers 404 when the container is not running', async () => {
    const view = runView();
    view.containers.clear();
    const res = await build(view).inject({ method: 'POST', url: '/run/default/web/app?cmd=true' });
    expect([res.statusCode, res.body]).toEqual([404, 'container "app" in pod "web" is not running\n']);
  });

  it('answers 500 naming the exit code and stderr when the command fails, as Go\'s CRI client', async () => {
    const view = runView();
    view.execResult = { stdout: Buffer.from(''), stderr: Buffer.from('no such file'), exitCode: 2 };
    const res = await build(view).inject({ method: 'POST', url: '/run/default/web/app?cmd=cat%20%2Fnope' });
    expect([res.statusCode, res.body]).toEqual([500, "command 'cat /nope' exited with 2: no such file\n"]);
  });

  it('answers 500 when the runtime cannot run it, and 404 when the runtime no longer has the container', async () => {
    const view = runView();
    view.execResult = new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'runtime down');
    expect((await build(view).inject({ method: 'POST', url: '/run/default/web/app?cmd=true' })).statusCode).toBe(500);
    await app?.close();
    view.execResult = new KubeletError('KLT_ERR_CRI_NOT_FOUND', 'no such container');
    expect((await build(view).inject({ method: 'POST', url: '/run/default/web/app?cmd=true' })).statusCode).toBe(404);
  });

  it('ignores a form body (curl -d) and answers 405 to other methods', async () => {
    const a = build(runView());
    const form = await a.inject({ method: 'POST', url: '/run/default/web/app?cmd=true', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'a=b' });
    expect(form.statusCode).toBe(200);
    expect((await a.inject({ method: 'GET', url: '/run/default/web/app?cmd=true' })).statusCode).toBe(405);
  });

  it('is authorized as nodes/proxy with verb create', async () => {
    const asked: NodeRequestAttributes[] = [];
    const accessReviewer: SubjectAccessReviewer = { review: async (a) => (asked.push(a), { allowed: true }) };
    await build(runView(), { anonymous: true, authorizationMode: 'Webhook', accessReviewer }).inject({ method: 'POST', url: '/run/default/web/app?cmd=true' });
    expect(asked.map((a) => [a.subresource, a.verb])).toEqual([['proxy', 'create']]);
  });
});

describe('kubelet server with enableDebuggingHandlers: false', () => {
  it.each([
    ['POST', '/run/default/web/app?cmd=true'], ['GET', '/exec/default/web/app'], ['POST', '/attach/default/web/app'],
    ['GET', '/portForward/default/web'], ['GET', '/containerLogs/default/web/app'], ['GET', '/runningpods/'],
    ['GET', '/debug/pprof/'], ['GET', '/logs/'], ['GET', '/logs/syslog'],
  ])('answers %s %s with 405 Debug endpoints are disabled., after authentication', async (method, url) => {
    const a = build(runView(), { anonymous: true }, false);
    const res = await a.inject({ method: method as 'GET' | 'POST', url });
    expect([res.statusCode, res.body]).toEqual([405, 'Debug endpoints are disabled.\n']);
    await app?.close();
    const denied = await build(runView(), { anonymous: false }, false).inject({ method: method as 'GET' | 'POST', url });
    expect(denied.statusCode).toBe(401);
  });

  it('still serves the default handlers and has no /configz', async () => {
    const a = build(new FakeKubeletView(), { anonymous: true }, false);
    expect((await a.inject('/pods')).statusCode).toBe(200);
    expect((await a.inject('/metrics/probes')).statusCode).toBe(200);
    expect((await a.inject('/configz')).statusCode).toBe(404);
  });
});

/** A view with pod `web` whose container `app` runs as `cid-1`; a command there prints out and err. */
function runView(): FakeKubeletView {
  const view = new FakeKubeletView();
  view.podsList = [testPod('web')];
  view.containers.set('default/web/app', { containerId: 'cid-1', uid: 'uid-web' });
  view.execResult = { stdout: Buffer.from('out\n'), stderr: Buffer.from('err\n'), exitCode: 0 };
  return view;
}
