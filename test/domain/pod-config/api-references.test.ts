import { describe, expect, it } from 'vitest';
import { staticPodApiReference } from '../../../src/domain/pod-config/api-references.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';

const podWith = (spec: Record<string, unknown> = {}, container: Partial<Container> = {}): Pod => ({
  metadata: { name: 'p', uid: 'u' },
  spec: { containers: [{ name: 'c', image: 'i', ...container }], ...spec } as Pod['spec'],
});

describe('staticPodApiReference', () => {
  it.each<[string, Pod, string]>([
    ['a service account', podWith({ serviceAccountName: 'builder' }), 'serviceaccounts'],
    ['image pull secrets', podWith({ imagePullSecrets: [{ name: 'reg' }] }), 'secrets'],
    ['an env secret key', podWith({}, { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }), 'secrets'],
    ['a secret volume', podWith({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }), 'secrets'],
    ['a CSI volume with a publish secret', podWith({ volumes: [{ name: 'v', csi: { driver: 'd', nodePublishSecretRef: { name: 's' } } }] }), 'secrets'],
    ['an envFrom config map', podWith({}, { envFrom: [{ configMapRef: { name: 'm' } }] }), 'configmaps'],
    ['a projected config map', podWith({ volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'm' } }] } }] }), 'configmaps'],
    ['resource claims', podWith({ resourceClaims: [{ name: 'gpu' }] }), 'resourceclaims'],
    ['a claim volume', podWith({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }), 'persistentvolumeclaims'],
    ['a CSI volume', podWith({ volumes: [{ name: 'v', csi: { driver: 'd' } }] }), 'csidrivers (via CSI volumes)'],
    ['a projected token', podWith({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }), 'serviceaccounts (via projected volumes)'],
  ])('finds %s', (_what, pod, resource) => {
    expect(staticPodApiReference(pod)).toEqual({ resource });
  });

  it.each<[string, Pod]>([
    ['no volumes', podWith()],
    ['hostPath and emptyDir volumes', podWith({ volumes: [{ name: 'a', hostPath: { path: '/x' } }, { name: 'b', emptyDir: {} }] })],
    ['a projected downward API', podWith({ volumes: [{ name: 'v', projected: { sources: [{ downwardAPI: { items: [] } }] } }] })],
    ['env from a field', podWith({}, { env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] })],
  ])('accepts %s', (_what, pod) => {
    expect(staticPodApiReference(pod)).toBeNull();
  });

  it('refuses a volume type it does not know, like Go', () => {
    expect(staticPodApiReference(podWith({ volumes: [{ name: 'v', fancyNewThing: {} }] }))).toEqual({ error: 'unknown volume type for volume  "v"' });
  });
});
