/**
 * A pod's Service variables from the Service lister, as Go's makeEnvironmentVariables asks for them:
 * an API pod waits for the first list (Go's error), a static pod does not; enableServiceLinks
 * defaults to true. The variables are Go's (the domain's serviceEnvVarMap over every Service), but
 * a pod reads only its namespace's Services and the master one, and a namespace's variables are
 * built once per version of its Services.
 */
import { describe, expect, it } from 'vitest';
import { serviceEnvSource } from '../../../src/actors/runtime-manager/service-env-source.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { serviceEnvVarMap, type Service } from '../../../src/domain/runtime/service-env.js';
import type { NamespaceServices, ServiceLister } from '../../../src/ports/services.js';

const svc = (namespace: string, name: string, clusterIP: string, port = 80): Service => ({ metadata: { namespace, name }, spec: { clusterIP, ports: [{ name: 'http', port }] } });
const master = svc('default', 'kubernetes', '10.96.0.1', 443);

/**
 * A lister over a namespace index, as the informer keeps it: `set` and `remove` change one
 * namespace's version. It also answers `list()` (every Service), which a source that scans the
 * cluster would read; `touched` counts the Services whose fields were read.
 */
function fakeLister(initial: Service[], synced = true) {
  const touched = new Set<string>();
  let versions = 0;
  const groups = new Map<string, { version: number; services: Map<string, Service> }>();
  const counted = (s: Service): Service => new Proxy(s, {
    get(target, prop, receiver) {
      touched.add(`${s.metadata.namespace}/${s.metadata.name}`);
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const set = (s: Service) => {
    const ns = s.metadata.namespace!;
    const group = groups.get(ns) ?? { version: 0, services: new Map<string, Service>() };
    group.services.set(s.metadata.name!, counted(s));
    group.version = ++versions;
    groups.set(ns, group);
  };
  const remove = (namespace: string, name: string) => {
    const group = groups.get(namespace);
    group?.services.delete(name);
    if (group?.services.size === 0) groups.delete(namespace);
    else if (group) group.version = ++versions;
  };
  for (const s of initial) set(s);
  const lister = {
    inNamespace: (namespace: string): NamespaceServices => groups.get(namespace) ?? { version: 0, services: new Map() },
    hasSynced: () => synced,
    list: () => [...groups.values()].flatMap((g) => [...g.services.values()]),
  } satisfies ServiceLister & { list(): Service[] };
  return { lister, set, remove, touched, all: () => lister.list() };
}

const pod = (namespace: string, opts: { source?: string; enableServiceLinks?: boolean } = {}): Pod => ({
  metadata: { name: 'p', namespace, uid: 'u', ...(opts.source ? { annotations: { 'kubernetes.io/config.source': opts.source } } : {}) },
  spec: { containers: [], ...(opts.enableServiceLinks !== undefined ? { enableServiceLinks: opts.enableServiceLinks } : {}) },
});

describe('serviceEnvSource', () => {
  const cart = svc('shop', 'cart', '10.96.0.9');

  it('refuses an API pod\'s variables until the Services were listed once, with Go\'s message', () => {
    expect(() => serviceEnvSource(fakeLister([master, cart], false).lister)(pod('shop', { source: 'api' }))).toThrow(expect.objectContaining({
      code: 'KLT_ERR_CONTAINER_CONFIG', message: 'services have not yet been read at least once, cannot construct envvars',
    }));
    expect(serviceEnvSource(fakeLister([master, cart]).lister)(pod('shop', { source: 'api' })).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
  });

  it('gives a static pod what is known without waiting', () => {
    expect(serviceEnvSource(fakeLister([master, cart], false).lister)(pod('shop', { source: 'file' })).get('CART_SERVICE_HOST')).toBe('10.96.0.9');
  });

  it('follows enableServiceLinks, true when absent', () => {
    const source = serviceEnvSource(fakeLister([master, cart]).lister);
    expect(source(pod('shop', { source: 'api' })).has('CART_SERVICE_HOST')).toBe(true);
    const unlinked = source(pod('shop', { source: 'api', enableServiceLinks: false }));
    expect(unlinked.has('CART_SERVICE_HOST')).toBe(false);
    expect(unlinked.get('KUBERNETES_SERVICE_PORT')).toBe('443');
  });

  it('gives what Go\'s rules give over every Service, through changes, in every namespace, with and without links', () => {
    const fake = fakeLister([
      master, svc('default', 'web', '10.96.1.1'), svc('default', 'headless', 'None'),
      svc('shop', 'cart', '10.96.2.1'), svc('shop', 'kubernetes', '10.96.2.2', 6443), svc('shop', 'db', '10.96.2.3', 5432),
      svc('ops', 'metrics', '10.96.3.1', 9090),
    ]);
    const source = serviceEnvSource(fake.lister);
    const check = () => {
      for (const namespace of ['default', 'shop', 'ops', 'empty']) {
        for (const enableServiceLinks of [true, false]) {
          const got = source(pod(namespace, { enableServiceLinks }));
          expect([...got], `${namespace}, links ${enableServiceLinks}`).toEqual([...serviceEnvVarMap(fake.all(), namespace, enableServiceLinks)]);
        }
      }
    };
    check();
    fake.set(svc('shop', 'cart', '10.96.2.9', 8080));
    fake.set(svc('ops', 'alerts', '10.96.3.2'));
    check();
    fake.remove('shop', 'kubernetes');
    fake.set(svc('default', 'kubernetes', '10.96.0.2', 443));
    check();
    fake.remove('ops', 'metrics');
    fake.remove('ops', 'alerts');
    check();
  });

  describe('with 3,000 Services in one namespace', () => {
    const bulk = Array.from({ length: 3_000 }, (_, i) => svc('bulk', `svc-${i}`, `10.97.${i >> 8}.${i & 255}`));

    it('a pod of another namespace reads only its namespace\'s Services and the master one', () => {
      const fake = fakeLister([master, ...bulk, svc('small', 'one', '10.96.5.5')]);
      const env = serviceEnvSource(fake.lister)(pod('small'));
      expect(env.get('ONE_SERVICE_HOST')).toBe('10.96.5.5');
      expect(env.get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
      expect([...fake.touched].sort()).toEqual(['default/kubernetes', 'small/one']);
    });

    it('builds a namespace\'s variables once, and a change in one namespace rebuilds only its own', () => {
      const fake = fakeLister([master, ...bulk, svc('small', 'one', '10.96.5.5')]);
      const source = serviceEnvSource(fake.lister);
      const bulkEnv = source(pod('bulk'));
      expect(bulkEnv.size).toBe(3_000 * 8 + 8);
      const smallEnv = source(pod('small'));
      fake.touched.clear();
      // Every later container of either namespace: the same variables, no Service read.
      expect(source(pod('bulk'))).toBe(bulkEnv);
      expect(source(pod('small'))).toBe(smallEnv);
      expect(fake.touched.size).toBe(0);

      fake.set(svc('small', 'one', '10.96.5.6'));
      expect(source(pod('bulk'))).toBe(bulkEnv);
      expect(fake.touched.size).toBe(0);
      const changed = source(pod('small'));
      expect(changed).not.toBe(smallEnv);
      expect(changed.get('ONE_SERVICE_HOST')).toBe('10.96.5.6');
      expect(bulkEnv.has('ONE_SERVICE_HOST')).toBe(false);

      fake.set(svc('bulk', 'svc-7', '10.98.0.7'));
      const rebuilt = source(pod('bulk'));
      expect(rebuilt).not.toBe(bulkEnv);
      expect(rebuilt.get('SVC_7_SERVICE_HOST')).toBe('10.98.0.7');
      expect(source(pod('small'))).toBe(changed);
    });

    it('a change of the master Service reaches every namespace', () => {
      const fake = fakeLister([master, ...bulk, svc('small', 'one', '10.96.5.5')]);
      const source = serviceEnvSource(fake.lister);
      for (const ns of ['bulk', 'small', 'empty']) expect(source(pod(ns)).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
      fake.set(svc('default', 'kubernetes', '10.96.0.2', 443));
      for (const ns of ['bulk', 'small', 'empty']) expect(source(pod(ns)).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.2');
      expect(source(pod('small', { enableServiceLinks: false })).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.2');
    });
  });
});
