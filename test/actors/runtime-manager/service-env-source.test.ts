/**
 * A pod's Service variables from the Service lister, as Go's makeEnvironmentVariables asks for them:
 * an API pod waits for the first list (Go's error), a static pod does not; enableServiceLinks
 * defaults to true.
 */
import { describe, expect, it } from 'vitest';
import { serviceEnvSource } from '../../../src/actors/runtime-manager/service-env-source.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { Service } from '../../../src/domain/runtime/service-env.js';

const services: Service[] = [
  { metadata: { namespace: 'default', name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] } },
  { metadata: { namespace: 'shop', name: 'cart' }, spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }] } },
];
const lister = (synced: boolean) => ({ list: () => services, hasSynced: () => synced });
const pod = (source?: string, enableServiceLinks?: boolean): Pod => ({
  metadata: { name: 'p', namespace: 'shop', uid: 'u', ...(source ? { annotations: { 'kubernetes.io/config.source': source } } : {}) },
  spec: { containers: [], ...(enableServiceLinks !== undefined ? { enableServiceLinks } : {}) },
});

describe('serviceEnvSource', () => {
  it('refuses an API pod\'s variables until the Services were listed once, with Go\'s message', () => {
    expect(() => serviceEnvSource(lister(false))(pod('api'))).toThrow(expect.objectContaining({
      code: 'KLT_ERR_CONTAINER_CONFIG', message: 'services have not yet been read at least once, cannot construct envvars',
    }));
    expect(serviceEnvSource(lister(true))(pod('api')).get('KUBERNETES_SERVICE_HOST')).toBe('10.96.0.1');
  });

  it('gives a static pod what is known without waiting', () => {
    expect(serviceEnvSource(lister(false))(pod('file')).get('CART_SERVICE_HOST')).toBe('10.96.0.9');
  });

  it('follows enableServiceLinks, true when absent', () => {
    expect(serviceEnvSource(lister(true))(pod('api')).has('CART_SERVICE_HOST')).toBe(true);
    const unlinked = serviceEnvSource(lister(true))(pod('api', false));
    expect(unlinked.has('CART_SERVICE_HOST')).toBe(false);
    expect(unlinked.get('KUBERNETES_SERVICE_PORT')).toBe('443');
  });
});
