/**
 * The volume sources over the kubelet's own API client (KubeApi as VolumeApi), against the test API
 * server on loopback: a ConfigMap and a Secret read through the Watch strategy, an update seen
 * through the watch, a 404 through the Get strategy, and a bound token from the TokenRequest API.
 */
import '../../apiserver/node20-compat.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiClients } from '../../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { createVolumeSources } from '../../../src/adapters/volume-sources/create-volume-sources.js';
import type { ApiClients } from '../../../src/ports/apiserver.js';
import { startTestApiServer, type TestApiServer } from '../../apiserver/index.js';
import { pod } from './helpers.js';

const logger = pino({ level: 'silent' });
let server: TestApiServer;
let dir: string;
let api: ApiClients;

beforeAll(async () => {
  server = await startTestApiServer();
  dir = mkdtempSync(join(tmpdir(), 'kubelet-ts-volume-sources-'));
  api = createApiClients({
    kubeconfigPath: server.kubeconfigPath(dir), qps: 0, burst: 0, eventQps: 0, eventBurst: 0, heartbeatTimeoutMs: 10_000, clock: systemClock, logger,
  });
}, 30_000);

afterAll(async () => {
  api.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('volume sources against the test API server', () => {
  it('reads a ConfigMap and a Secret through their watches, and sees an update', async () => {
    server.store.create('configmaps', { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'one' } });
    server.store.create('secrets', { metadata: { name: 'db', namespace: 'default' }, data: { password: Buffer.from('s3cret').toString('base64') } });
    const sources = createVolumeSources({ api: api.main, clock: systemClock, logger });
    sources.registerPod({ ...pod('w'), metadata: { name: 'web', namespace: 'default', uid: 'w' }, spec: {
      containers: [{ name: 'c', image: 'i', envFrom: [{ secretRef: { name: 'db' } }] }],
      volumes: [{ name: 'v', configMap: { name: 'settings' } }],
    } });
    try {
      expect((await sources.configMap('default', 'settings'))?.data['mode']?.toString()).toBe('one');
      expect((await sources.secret('default', 'db'))?.data['password']?.toString()).toBe('s3cret');

      const held = server.store.get('configmaps', 'default', 'settings')!;
      server.store.update('configmaps', { ...held, data: { mode: 'two' } });
      await vi.waitUntil(async () => (await sources.configMap('default', 'settings'))?.data['mode']?.toString() === 'two', { timeout: 5_000, interval: 20 });
      expect(server.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/configmaps/settings'))).toEqual([]);
    } finally {
      sources.close();
    }
  });

  it('answers undefined for a missing object through the Get strategy', async () => {
    const sources = createVolumeSources({ api: api.main, clock: systemClock, logger, strategy: 'Get' });
    expect(await sources.secret('default', 'nowhere')).toBeUndefined();
    sources.close();
  });

  it('gets a token bound to the pod from the TokenRequest API', async () => {
    server.store.create('serviceaccounts', { metadata: { name: 'app', namespace: 'default' } });
    const web = server.store.create('pods', { metadata: { name: 'token-pod', namespace: 'default' },
      spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'i' }] } });
    const uid = web.metadata?.uid as string;
    const sources = createVolumeSources({ api: api.main, clock: systemClock, logger });
    try {
      const before = Date.now();
      const answer = await sources.serviceAccountToken({
        namespace: 'default', serviceAccountName: 'app', audience: 'vault', expirationSeconds: 3600, pod: { namespace: 'default', name: 'token-pod', uid },
      });
      expect(answer.expirationTimestampMs).toBeGreaterThanOrEqual(before + 3_599_000);
      expect(answer.refreshAtMs).toBe(answer.expirationTimestampMs - 720_000);
      const claims = await server.tokens.verify(answer.token, { audience: 'vault' });
      expect(claims['kubernetes.io']).toMatchObject({ namespace: 'default', serviceaccount: { name: 'app' }, pod: { name: 'token-pod', uid } });
      expect((await sources.serviceAccountToken({
        namespace: 'default', serviceAccountName: 'app', audience: 'vault', expirationSeconds: 3600, pod: { namespace: 'default', name: 'token-pod', uid },
      })).token).toBe(answer.token);
      expect(server.tokens.requests).toHaveLength(1);
    } finally {
      sources.close();
    }
  });
});
