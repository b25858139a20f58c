import { beforeEach, describe, expect, it } from 'vitest';
import { fetchEnvSources } from '../../../src/actors/runtime-manager/env-sources.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import { makeEnvironmentVariables } from '../../../src/domain/runtime/env.js';
import { FakeVolumeSources, keyed } from '../../fakes/fake-volume-sources.js';

function podWith(container: Container, namespace: string | null = 'shop'): Pod {
  return { metadata: { name: 'web', ...(namespace !== null ? { namespace } : {}), uid: 'uid-1' }, spec: { containers: [container] } };
}

let sources: FakeVolumeSources;
beforeEach(() => {
  sources = new FakeVolumeSources();
});

describe('fetchEnvSources', () => {
  it('answers undefined and fetches nothing when the container refers to no object', async () => {
    const c: Container = { name: 'app', image: 'x', env: [{ name: 'A', value: 'a' }, { name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] };
    expect(await fetchEnvSources(sources, podWith(c), c)).toBeUndefined();
    expect(sources.calls).toEqual([]);
  });

  it('registers the pod, then reads each ConfigMap and Secret named by env valueFrom and envFrom once', async () => {
    const c: Container = {
      name: 'app', image: 'x',
      envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'creds' } }, { prefix: 'X_' }],
      env: [
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
        { name: 'FLAG', valueFrom: { configMapKeyRef: { name: 'flags', key: 'on' } } },
        { name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
        { name: 'TLS', valueFrom: { secretKeyRef: { name: 'tls', key: 'crt' } } },
      ],
    };
    await fetchEnvSources(sources, podWith(c), c);
    expect(sources.calls[0]).toBe('registerPod uid-1');
    expect(sources.calls.slice(1).sort()).toEqual(['configMap shop/flags', 'configMap shop/settings', 'secret shop/creds', 'secret shop/tls']);
  });

  it('answers the objects\' values decoded as UTF-8, and undefined for a missing one, by name', async () => {
    sources.configMaps.set('shop/settings', keyed({ greeting: Buffer.from('grüße', 'utf8') }));
    sources.secrets.set('shop/creds', keyed({ password: Buffer.from('czNjcmV0', 'base64') }));
    const c: Container = { name: 'app', image: 'x', envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'creds' } }, { configMapRef: { name: 'absent' } }] };
    const lookup = await fetchEnvSources(sources, podWith(c), c);
    expect(lookup?.configMap('shop', 'settings')).toEqual({ greeting: 'grüße' });
    expect(lookup?.secret('shop', 'creds')).toEqual({ password: 's3cret' });
    expect(lookup?.configMap('shop', 'absent')).toBeUndefined();
    expect(lookup?.secret('shop', 'settings')).toBeUndefined();
  });

  it('leaves a ConfigMap\'s binaryData keys out of the env, as Go reads only data there', async () => {
    sources.configMaps.set('shop/settings', { data: { mode: Buffer.from('fast'), blob: Buffer.from([0xff, 0x00]) }, binaryKeys: ['blob'] });
    const c: Container = { name: 'app', image: 'x', envFrom: [{ configMapRef: { name: 'settings' } }], env: [{ name: 'B', valueFrom: { configMapKeyRef: { name: 'settings', key: 'blob' } } }] };
    const lookup = await fetchEnvSources(sources, podWith(c), c);
    expect(lookup?.configMap('shop', 'settings')).toEqual({ mode: 'fast' });
    expect(() => makeEnvironmentVariables(podWith(c), c, { podIPs: [], hostIPs: [], ...(lookup ? { lookup } : {}) })).toThrow("couldn't find key blob in ConfigMap shop/settings");
  });

  it('reads from the default namespace for a pod without one', async () => {
    const c: Container = { name: 'app', image: 'x', envFrom: [{ configMapRef: { name: 'settings' } }] };
    await fetchEnvSources(sources, podWith(c, null), c);
    expect(sources.calls).toEqual(['registerPod uid-1', 'configMap default/settings']);
  });

  it('rejects when a manager read fails', async () => {
    sources.failNext = new Error('the API server is unreachable');
    const c: Container = { name: 'app', image: 'x', envFrom: [{ configMapRef: { name: 'settings' } }] };
    await expect(fetchEnvSources(sources, podWith(c), c)).rejects.toThrow('the API server is unreachable');
  });

  it('feeds makeEnvironmentVariables: envFrom, key references, an optional missing object skipped', async () => {
    sources.configMaps.set('shop/settings', keyed({ mode: 'fast' }));
    sources.secrets.set('shop/creds', keyed({ password: 's3cret' }));
    const c: Container = {
      name: 'app', image: 'x',
      envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { secretRef: { name: 'gone', optional: true } }],
      env: [{ name: 'PASS', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }],
    };
    const pod = podWith(c);
    const lookup = await fetchEnvSources(sources, pod, c);
    expect(makeEnvironmentVariables(pod, c, { podIPs: [], hostIPs: [], ...(lookup ? { lookup } : {}) })).toEqual([
      { name: 'CFG_mode', value: 'fast' },
      { name: 'PASS', value: 's3cret' },
    ]);
  });
});
