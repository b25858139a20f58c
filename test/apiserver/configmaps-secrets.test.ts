/**
 * ConfigMaps, Secrets and ServiceAccounts on the test API server, driven over HTTP by client-node
 * and by plain fetch: CRUD, selectors, watches from a resourceVersion, Secret stringData, immutable
 * objects and the faults the other resources get.
 */
import './node20-compat.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { clientsFor, collectWatch, failureOf, type Clients } from './client-helpers.js';
import { startTestApiServer, type TestApiServer } from './index.js';

let server: TestApiServer;
let c: Clients;

beforeEach(async () => {
  server = await startTestApiServer({ rootCaConfigMaps: false, defaultServiceAccounts: false });
  c = clientsFor(server);
});

afterEach(async () => {
  await server.close();
});

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** A raw request, so the test sees the exact JSON the server answers. */
async function http(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('test API server: configmaps', () => {
  it('creates, reads, lists by label and field, replaces, patches and deletes a ConfigMap', async () => {
    const created = await c.core.createNamespacedConfigMap({ namespace: 'default', body: {
      metadata: { name: 'app', labels: { tier: 'web' } }, data: { 'a.conf': 'x=1' }, binaryData: { blob: b64('\u0000\u0001') },
    } });
    expect(created).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { 'a.conf': 'x=1' }, binaryData: { blob: 'AAE=' } });
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'other' } } });

    expect((await c.core.readNamespacedConfigMap({ name: 'app', namespace: 'default' })).metadata?.uid).toBe(created.metadata?.uid);
    const byLabel = await c.core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'tier=web' });
    expect(byLabel.items.map((cm) => cm.metadata?.name)).toEqual(['app']);
    const byField = await c.core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=default,metadata.name=other' });
    expect(byField.items.map((cm) => cm.metadata?.name)).toEqual(['other']);

    const replaced = await c.core.replaceNamespacedConfigMap({ name: 'app', namespace: 'default', body: { ...created, data: { 'a.conf': 'x=2' } } });
    expect(replaced.data).toEqual({ 'a.conf': 'x=2' });
    const patched = await c.core.patchNamespacedConfigMap({ name: 'app', namespace: 'default', body: { data: { 'b.conf': 'y' } } }, merge);
    expect(patched.data).toEqual({ 'a.conf': 'x=2', 'b.conf': 'y' });

    const deleted = await http('DELETE', '/api/v1/namespaces/default/configmaps/app');
    expect(deleted).toMatchObject({ status: 200, json: { kind: 'Status', status: 'Success', details: { name: 'app', kind: 'configmaps' } } });
    expect(await failureOf(() => c.core.readNamespacedConfigMap({ name: 'app', namespace: 'default' })))
      .toMatchObject({ code: 404, message: 'configmaps "app" not found' });
  });

  it('streams the later update to a watch started at the create resourceVersion', async () => {
    const created = await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'w' }, data: { k: 'v1' } } });
    await c.core.replaceNamespacedConfigMap({ name: 'w', namespace: 'default', body: { metadata: { name: 'w' }, data: { k: 'v2' } } });
    const w = await collectWatch(c.kc, '/api/v1/namespaces/default/configmaps',
      { resourceVersion: created.metadata?.resourceVersion, fieldSelector: 'metadata.name=w' });
    await c.core.deleteNamespacedConfigMap({ name: 'w', namespace: 'default' });
    await vi.waitFor(() => expect(w.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']));
    expect((w.events[0]?.object as { data?: Record<string, string> }).data).toEqual({ k: 'v2' });
    w.abort();
  });

  it('refuses to change the data of an immutable ConfigMap with 422, and allows its labels and deletion', async () => {
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'frozen' }, data: { k: 'v' }, immutable: true } });
    const status = await failureOf(() => c.core.patchNamespacedConfigMap({ name: 'frozen', namespace: 'default', body: { data: { k: 'changed' } } }, merge));
    expect(status).toMatchObject({
      code: 422, reason: 'Invalid',
      message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      details: { name: 'frozen', kind: 'ConfigMap', causes: [{ reason: 'FieldValueForbidden', field: 'data' }] },
    });
    const unfreeze = await failureOf(() => c.core.patchNamespacedConfigMap({ name: 'frozen', namespace: 'default', body: { immutable: false, binaryData: { b: 'AA==' } } }, merge));
    expect(unfreeze.message).toBe('ConfigMap "frozen" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, '
      + 'binaryData: Forbidden: field is immutable when `immutable` is set]');

    const labelled = await c.core.patchNamespacedConfigMap({ name: 'frozen', namespace: 'default', body: { metadata: { labels: { a: 'b' } } } }, merge);
    expect(labelled.metadata?.labels).toEqual({ a: 'b' });
    await c.core.deleteNamespacedConfigMap({ name: 'frozen', namespace: 'default' });
  });

  it('answers 400 for binaryData that is not base64, as the decoder does', async () => {
    const res = await http('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bad' }, binaryData: { b: 'YW*j' } });
    expect(res).toMatchObject({ status: 400, json: { reason: 'BadRequest',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 2' } });
  });
});

describe('test API server: secrets', () => {
  it('merges stringData into data as base64 over data keys, and never stores or returns stringData', async () => {
    const created = await http('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 's' }, data: { user: b64('old'), keep: b64('k') }, stringData: { user: 'admin', pass: 'p@ss' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: 'Secret', type: 'Opaque', data: { keep: b64('k'), pass: b64('p@ss'), user: b64('admin') } });
    expect(created.json).not.toHaveProperty('stringData');
    expect(server.store.get('secrets', 'default', 's')).not.toHaveProperty('stringData');

    const patched = await c.core.patchNamespacedSecret({ name: 's', namespace: 'default', body: { stringData: { pass: 'new' } } }, merge);
    expect(patched.data?.pass).toBe(b64('new'));
    expect(patched.stringData).toBeUndefined();
    const read = await c.core.readNamespacedSecret({ name: 's', namespace: 'default' });
    expect(Object.keys(read.data ?? {})).toEqual(['keep', 'pass', 'user']);
  });

  it('defaults type to Opaque, selects by type, and refuses a type change with 422', async () => {
    await c.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'plain' }, stringData: { a: 'b' } } });
    await c.core.createNamespacedSecret({ namespace: 'default', body: {
      metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') },
    } });
    const opaque = await c.core.listNamespacedSecret({ namespace: 'default', fieldSelector: 'type=Opaque' });
    expect(opaque.items.map((s) => [s.metadata?.name, s.type])).toEqual([['plain', 'Opaque']]);

    const changed = await failureOf(() => c.core.patchNamespacedSecret({ name: 'tls', namespace: 'default', body: { type: 'Opaque' } }, merge));
    expect(changed).toMatchObject({ code: 422, message: 'Secret "tls" is invalid: type: Invalid value: "Opaque": field is immutable' });
  });

  it('refuses new data, stringData included, on an immutable Secret', async () => {
    await c.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'frozen' }, stringData: { a: 'b' }, immutable: true } });
    const status = await failureOf(() => c.core.patchNamespacedSecret({ name: 'frozen', namespace: 'default', body: { stringData: { a: 'c' } } }, merge));
    expect(status).toMatchObject({ code: 422, message: 'Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set' });
  });

  it('streams a Secret update to a watch from a resourceVersion, without stringData', async () => {
    const rv = server.store.resourceVersion();
    const w = await collectWatch(c.kc, '/api/v1/namespaces/default/secrets', { resourceVersion: rv });
    await c.core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'w' }, stringData: { k: 'v1' } } });
    await c.core.patchNamespacedSecret({ name: 'w', namespace: 'default', body: { stringData: { k: 'v2' } } }, merge);
    await vi.waitFor(() => expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']));
    expect(w.events[1]?.object).toMatchObject({ data: { k: b64('v2') } });
    expect(w.events[1]?.object).not.toHaveProperty('stringData');
    w.abort();
  });

  it.each([
    ['YWJj', undefined], ['YWI=', undefined], ['YQ==', undefined], ['YW\nJj', undefined],
    ['YWJ', 0], ['YWJjZA', 4], ['Y===', 1], ['YQ==YQ==', 4], ['YW!j', 2],
  ])('reads data %j as Go does (error at byte %s)', (value, offset) => {
    const write = () => server.store.create('secrets', { metadata: { name: 'b', namespace: 'default' }, data: { k: value } });
    if (offset === undefined) expect(write()).toHaveProperty('data.k');
    else expect(write).toThrow(`illegal base64 data at input byte ${offset}`);
  });
});

describe('test API server: serviceaccounts', () => {
  it('creates, lists by name and deletes a ServiceAccount', async () => {
    await c.core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'robot' }, automountServiceAccountToken: false } });
    const list = await c.core.listNamespacedServiceAccount({ namespace: 'default', fieldSelector: 'metadata.name=robot' });
    expect(list.items.map((sa) => [sa.metadata?.name, sa.automountServiceAccountToken])).toEqual([['robot', false]]);
    await c.core.deleteNamespacedServiceAccount({ name: 'robot', namespace: 'default' });
    expect(server.store.get('serviceaccounts', 'default', 'robot')).toBeUndefined();
  });
});

describe('test API server: faults on the new resources', () => {
  it('fails the matching ConfigMap and Secret requests as injected, then serves them again', async () => {
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cm' } } });
    server.faults.failNext(1, 503, (r) => r.path.endsWith('/configmaps/cm'));
    server.faults.failNext(1, 429, (r) => r.path.includes('/secrets'));
    expect(await failureOf(() => c.core.readNamespacedConfigMap({ name: 'cm', namespace: 'default' }))).toMatchObject({ code: 503 });
    expect(await failureOf(() => c.core.listNamespacedSecret({ namespace: 'default' }))).toMatchObject({ code: 429 });
    expect((await c.core.readNamespacedConfigMap({ name: 'cm', namespace: 'default' })).metadata?.name).toBe('cm');
  });

  it('delays a ServiceAccount token request while a delay is set', async () => {
    await c.core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'sa' } } });
    // The fault under test, not a wait: the server holds each answer back this long.
    server.faults.delay(150); // injected latency
    const started = Date.now();
    await c.core.createNamespacedServiceAccountToken({ name: 'sa', namespace: 'default', body: { spec: { audiences: [] } } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});
