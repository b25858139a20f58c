import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { mountedVolumes, podVolumeUses } from '../../../src/domain/volumes/pod-volumes.js';

const pod: Pod = {
  metadata: { name: 'p', namespace: 'apps', uid: 'uid-1' },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox', volumeDevices: [{ name: 'disk', devicePath: '/dev/xvda' }] }],
    containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }], volumeDevices: [{ name: 'raw', devicePath: '/dev/xvdb' }] }],
    volumes: [
      { name: 'unused', emptyDir: {} },
      { name: 'raw', persistentVolumeClaim: { claimName: 'raw' } },
      { name: 'data', emptyDir: {} },
      { name: 'disk', persistentVolumeClaim: { claimName: 'disk' } },
    ],
  },
};

describe('the volumes a pod uses', () => {
  it('are those its containers (init ones too) mount or map as devices, in spec order', () => {
    expect(mountedVolumes(pod).map((v) => v.name)).toEqual(['raw', 'data', 'disk']);
  });

  it('are told apart: mounted, mapped', () => {
    const uses = podVolumeUses(pod);
    expect([...uses.mounts]).toEqual(['data']);
    expect([...uses.devices].sort()).toEqual(['disk', 'raw']);
  });
});
