/**
 * The Service variables against Go's rules (getServiceEnvVarMap, envvars.FromServices) and their
 * place in a container's environment (makeEnvironmentVariables: the container's own env wins, and
 * `$(VAR)` sees them).
 */
import { describe, expect, it } from 'vitest';
import { makeEnvironmentVariables } from '../../../src/domain/runtime/env.js';
import { serviceEnvVarMap, type Service, type ServicePort } from '../../../src/domain/runtime/service-env.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const svc = (namespace: string, name: string, clusterIP: string, ports: ServicePort[]): Service => ({ metadata: { namespace, name }, spec: { clusterIP, ports } });

const master = svc('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP' }]);
const MASTER_VARS = {
  KUBERNETES_SERVICE_HOST: '10.96.0.1',
  KUBERNETES_SERVICE_PORT: '443',
  KUBERNETES_SERVICE_PORT_HTTPS: '443',
  KUBERNETES_PORT: 'tcp://10.96.0.1:443',
  KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443',
  KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
  KUBERNETES_PORT_443_TCP_PORT: '443',
  KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
};

describe('serviceEnvVarMap', () => {
  it('a Service with two named ports: host, first port, each named port and the link variables of both', () => {
    const web = svc('shop', 'web-front', '10.96.3.4', [{ name: 'http', port: 80 }, { name: 'metrics-port', port: 9090, protocol: 'UDP' }]);
    expect(Object.fromEntries(serviceEnvVarMap([web], 'shop', true))).toEqual({
      WEB_FRONT_SERVICE_HOST: '10.96.3.4',
      WEB_FRONT_SERVICE_PORT: '80',
      WEB_FRONT_SERVICE_PORT_HTTP: '80',
      WEB_FRONT_SERVICE_PORT_METRICS_PORT: '9090',
      WEB_FRONT_PORT: 'tcp://10.96.3.4:80',
      WEB_FRONT_PORT_80_TCP: 'tcp://10.96.3.4:80',
      WEB_FRONT_PORT_80_TCP_PROTO: 'tcp',
      WEB_FRONT_PORT_80_TCP_PORT: '80',
      WEB_FRONT_PORT_80_TCP_ADDR: '10.96.3.4',
      WEB_FRONT_PORT_9090_UDP: 'udp://10.96.3.4:9090',
      WEB_FRONT_PORT_9090_UDP_PROTO: 'udp',
      WEB_FRONT_PORT_9090_UDP_PORT: '9090',
      WEB_FRONT_PORT_9090_UDP_ADDR: '10.96.3.4',
    });
  });

  it('an unnamed first port has no _SERVICE_PORT_<NAME>; an IPv6 cluster IP is bracketed in URLs', () => {
    const v6 = svc('shop', 'db', 'fd00::10', [{ port: 5432 }]);
    const vars = serviceEnvVarMap([v6], 'shop', true);
    expect(vars.get('DB_SERVICE_PORT')).toBe('5432');
    expect([...vars.keys()].filter((k) => k.startsWith('DB_SERVICE_PORT_'))).toEqual([]);
    expect(vars.get('DB_PORT')).toBe('tcp://[fd00::10]:5432');
    expect(vars.get('DB_PORT_5432_TCP_ADDR')).toBe('fd00::10');
  });

  it('headless (None) and IP-less (ExternalName) Services give nothing', () => {
    const headless = svc('shop', 'peers', 'None', [{ port: 7000 }]);
    const external = svc('shop', 'ext', '', [{ port: 443 }]);
    expect([...serviceEnvVarMap([headless, external, master], 'shop', true).keys()].filter((k) => !k.startsWith('KUBERNETES_'))).toEqual([]);
  });

  it('the master Service always, the namespace\'s only with enableServiceLinks, other namespaces\' never', () => {
    const mine = svc('shop', 'cart', '10.96.0.20', [{ port: 8080 }]);
    const theirs = svc('other', 'billing', '10.96.0.30', [{ port: 8080 }]);
    const defaultOther = svc('default', 'not-master', '10.96.0.40', [{ port: 1 }]);
    expect(Object.fromEntries(serviceEnvVarMap([master, mine, theirs, defaultOther], 'shop', false))).toEqual(MASTER_VARS);
    const linked = serviceEnvVarMap([master, mine, theirs, defaultOther], 'shop', true);
    expect(linked.get('CART_SERVICE_HOST')).toBe('10.96.0.20');
    expect(linked.has('BILLING_SERVICE_HOST')).toBe(false);
    expect(linked.has('NOT_MASTER_SERVICE_HOST')).toBe(false);
    // A pod of `default` sees its namespace's Services too.
    expect(serviceEnvVarMap([master, defaultOther], 'default', true).get('NOT_MASTER_SERVICE_HOST')).toBe('10.96.0.40');
  });

  it('a Service named kubernetes in the pod\'s namespace wins over the master Service, in either order', () => {
    const own = svc('shop', 'kubernetes', '10.96.9.9', [{ port: 6443 }]);
    for (const order of [[master, own], [own, master]]) {
      const vars = serviceEnvVarMap(order, 'shop', true);
      expect(vars.get('KUBERNETES_SERVICE_HOST')).toBe('10.96.9.9');
      expect(vars.get('KUBERNETES_SERVICE_PORT')).toBe('6443');
    }
    // Without links the pod's namespace's Service is not seen: the master Service is.
    expect(serviceEnvVarMap([own, master], 'shop', false).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
  });
});

describe('Service variables in a container\'s environment', () => {
  const container: Container = {
    name: 'app', image: 'x:1',
    env: [
      { name: 'KUBERNETES_SERVICE_PORT', value: '8443' },
      { name: 'API', value: 'https://$(KUBERNETES_SERVICE_HOST):$(KUBERNETES_SERVICE_PORT)' },
    ],
  };
  const pod: Pod = { metadata: { name: 'p', namespace: 'shop', uid: 'u' }, spec: { containers: [container] } };

  it('the container\'s env wins over a Service variable, and $(VAR) sees both', () => {
    const env = makeEnvironmentVariables(pod, container, { podIPs: [], hostIPs: [], serviceEnv: serviceEnvVarMap([master], 'shop', true) });
    const byName = Object.fromEntries(env.map((e) => [e.name, e.value]));
    expect(byName.KUBERNETES_SERVICE_PORT).toBe('8443');
    expect(byName.API).toBe('https://10.96.0.1:8443');
    expect(byName.KUBERNETES_SERVICE_HOST).toBe('10.96.0.1');
    expect(env.filter((e) => e.name === 'KUBERNETES_SERVICE_PORT')).toHaveLength(1);
  });
});
