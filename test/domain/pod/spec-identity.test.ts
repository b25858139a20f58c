import { describe, expect, it } from 'vitest';
import { admitPodIdentity, podIdentityProblems } from '../../../src/domain/pod/spec-identity.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const pod = (uid: string, spec: Partial<Pod['spec']> = {}): Pod => ({ metadata: { name: 'web', uid }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec } });

describe('podIdentityProblems', () => {
  it('finds nothing wrong with a usual pod', () => {
    expect(podIdentityProblems(pod('0b4c1f5e-9f37', { volumes: [{ name: 'data', emptyDir: {} }] }))).toEqual([]);
    expect(admitPodIdentity(pod('u1'))).toEqual({ admit: true });
  });

  it('names a uid or a name that is no path segment, and every duplicate, by field', () => {
    const bad = pod('../../../victim-uid', {
      volumes: [{ name: 'd', emptyDir: {} }, { name: 'd', emptyDir: {} }, { name: '..', emptyDir: {} }],
      initContainers: [{ name: 'app', image: 'busybox' }],
    });
    expect(podIdentityProblems(bad)).toEqual([
      'metadata.uid: Invalid value: "../../../victim-uid": contains "/"',
      'spec.volumes[1].name: Duplicate value: "d"',
      'spec.volumes[2].name: Invalid value: "..": is ".."',
      'spec.containers[0].name: Duplicate value: "app"',
    ]);
    expect(admitPodIdentity(pod(''))).toEqual({ admit: false, reason: 'InvalidPodSpec', message: 'the kubelet cannot run this pod: metadata.uid: Invalid value: "": is empty' });
  });
});
