/**
 * The objects kube-controller-manager keeps in every namespace, on the test API server: the
 * kube-root-ca.crt ConfigMap and the default ServiceAccount, and the options that turn them off.
 */
import './node20-compat.js';
import { X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { clientsFor, failureOf } from './client-helpers.js';
import { startTestApiServer, type TestApiServer, type TestApiServerOptions } from './index.js';
import { settle } from '../support/settle.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

let server: TestApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(opts: TestApiServerOptions = {}) {
  server = await startTestApiServer(opts);
  return { server, c: clientsFor(server) };
}

describe('test API server: namespace defaults', () => {
  it.each(NAMESPACES)('has kube-root-ca.crt and the default ServiceAccount in %s from the start', async (namespace) => {
    const { server, c } = await start();
    const cm = await c.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace });
    expect(cm.data).toEqual({ 'ca.crt': server.rootCaPem });
    expect(cm.metadata?.annotations?.['kubernetes.io/description']).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
    expect((await c.core.readNamespacedServiceAccount({ name: 'default', namespace })).metadata?.uid).toBeDefined();
  });

  it('publishes a CA certificate: the serving CA over TLS', async () => {
    const plain = await start();
    expect(new X509Certificate(plain.server.rootCaPem ?? '').ca).toBe(true);
    await plain.server.close();
    const { server, c } = await start({ tls: true });
    expect(server.rootCaPem).toBe(server.caPem);
    expect((await c.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' })).data?.['ca.crt']).toBe(server.caPem);
  });

  it('fills a namespace when it is created, and one an object is first created in', async () => {
    const { server, c } = await start();
    await c.core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    await vi.waitFor(() => expect(server.store.get('serviceaccounts', 'team-a', 'default')).toBeDefined());
    expect((await c.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'team-a' })).data?.['ca.crt']).toBe(server.rootCaPem);

    server.store.create('pods', { metadata: { name: 'p', namespace: 'no-namespace-object' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    await vi.waitFor(() => expect(server.store.get('configmaps', 'no-namespace-object', 'kube-root-ca.crt')).toBeDefined());
    expect(server.store.get('serviceaccounts', 'no-namespace-object', 'default')).toBeDefined();
  });

  it('puts kube-root-ca.crt and the default ServiceAccount back when deleted, and resets changed CA data', async () => {
    const { server, c } = await start();
    await c.core.deleteNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' });
    await c.core.deleteNamespacedServiceAccount({ name: 'default', namespace: 'default' });
    await vi.waitFor(() => {
      expect(server.store.get('configmaps', 'default', 'kube-root-ca.crt')).toBeDefined();
      expect(server.store.get('serviceaccounts', 'default', 'default')).toBeDefined();
    });
    const changed = await c.core.patchNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default', body: { data: { 'ca.crt': 'x' } } }, merge);
    expect(changed.data?.['ca.crt']).toBe('x');
    await vi.waitFor(() => expect(server.store.get('configmaps', 'default', 'kube-root-ca.crt')?.data).toEqual({ 'ca.crt': server.rootCaPem }));
  });

  it('has neither object when both are turned off, so a test can show them missing', async () => {
    const { server, c } = await start({ rootCaConfigMaps: false, defaultServiceAccounts: false });
    expect(server.rootCaPem).toBeUndefined();
    expect(await failureOf(() => c.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: 'default' })))
      .toMatchObject({ code: 404, message: 'configmaps "kube-root-ca.crt" not found' });
    expect(await failureOf(() => c.core.createNamespacedServiceAccountToken({ name: 'default', namespace: 'default', body: { spec: { audiences: [] } } })))
      .toMatchObject({ code: 404, message: 'serviceaccounts "default" not found' });
    await c.core.createNamespace({ body: { metadata: { name: 'team-b' } } });
    // Nothing may be made. The defaults are made in a microtask after the namespace is stored, so a
    // wrong one would exist before the answer went out, and surely one event-loop turn later.
    await settle();
    expect(server.store.list('configmaps').items).toEqual([]);
    expect(server.store.list('serviceaccounts').items).toEqual([]);
  });
});
