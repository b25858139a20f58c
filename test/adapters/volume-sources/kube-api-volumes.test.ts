/** KubeApi's VolumeApi calls over HTTP, against a loopback server that records what it is sent. */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApi } from '../../../src/adapters/apiserver/kube-api.js';
import { noRateLimit } from '../../../src/adapters/apiserver/rate-limiter.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import type { VolumeObject, WatchEventType } from '../../../src/ports/apiserver.js';

let server: Server;
let api: KubeApi;
const seen: { method: string; url: string; body: string }[] = [];
/** The open watch answer, for the test to write events to. */
let watchRes: ServerResponse | null = null;

const json = (res: ServerResponse, code: number, body: unknown) => res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = req.url ?? '';
      seen.push({ method: req.method ?? '', url, body });
      const path = url.split('?')[0];
      if (path === '/api/v1/namespaces/ns/configmaps/missing') return json(res, 404, { kind: 'Status', reason: 'NotFound', message: 'configmaps "missing" not found' });
      if (path === '/api/v1/namespaces/ns/secrets/forbidden') return json(res, 403, { kind: 'Status', reason: 'Forbidden', message: 'no relationship found' });
      if (path === '/apis/storage.k8s.io/v1/csidrivers/drv.example.com') return json(res, 200, { metadata: { name: 'drv.example.com' }, spec: { attachRequired: false, podInfoOnMount: true } });
      if (path === '/apis/storage.k8s.io/v1/csidrivers/absent') return json(res, 404, { kind: 'Status', reason: 'NotFound', message: 'csidrivers.storage.k8s.io "absent" not found' });
      if (path === '/apis/storage.k8s.io/v1/volumeattachments/csi-1') return json(res, 200, { metadata: { name: 'csi-1' }, status: { attached: true } });
      if (path === '/api/v1/namespaces/ns/configmaps/cm') return json(res, 200, { metadata: { name: 'cm', namespace: 'ns', resourceVersion: '7' }, data: { k: 'v' } });
      if (path === '/api/v1/namespaces/ns/configmaps' && url.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        watchRes = res;
        return;
      }
      if (path === '/api/v1/namespaces/ns/configmaps') return json(res, 200, { metadata: { resourceVersion: '9' }, items: [{ metadata: { name: 'cm', namespace: 'ns' } }] });
      if (path === '/api/v1/namespaces/ns/serviceaccounts/default/token') {
        const sent = JSON.parse(body) as { spec: unknown };
        return json(res, 201, { spec: sent.spec, status: { token: 'jwt', expirationTimestamp: '2030-01-01T00:00:00Z' } });
      }
      json(res, 500, {});
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = new KubeApi({
    loadConfig: () => ({ path: 'test', cluster: { server: base, insecureSkipTlsVerify: false }, user: { external: false } }),
    limiter: noRateLimit,
    timeoutMs: null,
    clock: systemClock,
    userAgent: 'kubelet-ts/test',
  });
});
afterAll(async () => {
  api.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('KubeApi as VolumeApi', () => {
  it('GETs an object, answers undefined for a 404 and maps other errors', async () => {
    expect(await api.getObject('configmaps', 'ns', 'cm', { resourceVersion: '0' })).toMatchObject({ data: { k: 'v' } });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/v1/namespaces/ns/configmaps/cm?resourceVersion=0' });
    expect(await api.getObject('configmaps', 'ns', 'missing')).toBeUndefined();
    await expect(api.getObject('secrets', 'ns', 'forbidden')).rejects.toMatchObject({ code: 'KLT_ERR_API_FORBIDDEN' });
  });

  it('lists one object by field selector', async () => {
    expect(await api.listObject('configmaps', 'ns', 'cm')).toEqual({ resourceVersion: '9', items: [{ metadata: { name: 'cm', namespace: 'ns' } }] });
    expect(seen.at(-1)!.url).toBe('/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm');
  });

  it('watches one object from a resourceVersion with bookmarks, and ends on an ERROR event', async () => {
    const events: [WatchEventType, VolumeObject][] = [];
    let done: (err: unknown) => void = () => {};
    const ended = new Promise<unknown>((r) => (done = r));
    await api.watchObject('configmaps', { namespace: 'ns', name: 'cm', resourceVersion: '9', onEvent: (t, o) => events.push([t, o]), onDone: (err) => done(err) });
    const url = new URL(seen.at(-1)!.url, 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({ watch: 'true', fieldSelector: 'metadata.name=cm', resourceVersion: '9', allowWatchBookmarks: 'true' });
    watchRes!.write(`${JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'cm', resourceVersion: '10' }, data: { k: 'v2' } } })}\n`);
    watchRes!.write(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '11' } } })}\n`);
    watchRes!.write(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`);
    expect(await ended).toMatchObject({ code: 'KLT_ERR_API_GONE' });
    expect(events.map(([t, o]) => [t, o.metadata.resourceVersion])).toEqual([['MODIFIED', '10'], ['BOOKMARK', '11']]);
  });

  it('POSTs a TokenRequest bound to the pod', async () => {
    const spec = { audiences: ['vault'], expirationSeconds: 3600, boundObjectRef: { apiVersion: 'v1' as const, kind: 'Pod' as const, name: 'p', uid: 'u' } };
    const answer = await api.createServiceAccountToken('ns', 'default', spec);
    expect(answer).toEqual({ spec, status: { token: 'jwt', expirationTimestamp: '2030-01-01T00:00:00Z' } });
    const req = seen.at(-1)!;
    expect([req.method, req.url]).toEqual(['POST', '/api/v1/namespaces/ns/serviceaccounts/default/token']);
    expect(JSON.parse(req.body)).toEqual({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  });
});

describe('KubeApi as CsiObjectApi', () => {
  it('GETs a CSIDriver\'s spec and a VolumeAttachment, undefined when absent', async () => {
    expect(await api.getCsiDriver('drv.example.com')).toEqual({ attachRequired: false, podInfoOnMount: true });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/apis/storage.k8s.io/v1/csidrivers/drv.example.com' });
    expect(await api.getCsiDriver('absent')).toBeUndefined();
    expect(await api.getVolumeAttachment('csi-1')).toMatchObject({ status: { attached: true } });
    await expect(api.getSecret('ns', 'forbidden')).rejects.toMatchObject({ code: 'KLT_ERR_API_FORBIDDEN' });
  });
});
