import { describe, expect, it } from 'vitest';
import { makeContainerDevices } from '../../../src/actors/runtime-manager/container-devices.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { VolumePlugins } from '../../../src/ports/volumes.js';

const container: Container = { name: 'app', image: 'busybox', volumeDevices: [{ name: 'disk', devicePath: '/dev/xvda' }, { name: 'ro', devicePath: '/dev/xvdb' }] };
const pod: Pod = {
  metadata: { name: 'p', namespace: 'apps', uid: 'uid-1' },
  spec: { containers: [container], volumes: [{ name: 'disk', persistentVolumeClaim: { claimName: 'disk' } }, { name: 'ro', persistentVolumeClaim: { claimName: 'ro', readOnly: true } }] },
};
const link = (pv: string) => `/var/lib/kubelet/pods/uid-1/volumeDevices/kubernetes.io~local-volume/${pv}`;
/** The volume plugins' record: both claims mapped, the second read-only. */
const mapped: Pick<VolumePlugins, 'mountedVolume'> = {
  mountedVolume: (podUid, name) => (podUid !== 'uid-1' ? undefined : name === 'disk' ? { hostPath: link('pv-a'), readOnly: false } : name === 'ro' ? { hostPath: link('pv-b'), readOnly: true } : undefined),
};

describe('makeContainerDevices (makeBlockVolumes)', () => {
  it('gives each volumeDevice its map\'s symlink, mrw, or r for a read-only claim', () => {
    expect(makeContainerDevices(mapped, pod, container)).toEqual([
      { container_path: '/dev/xvda', host_path: link('pv-a'), permissions: 'mrw' },
      { container_path: '/dev/xvdb', host_path: link('pv-b'), permissions: 'r' },
    ]);
    expect(makeContainerDevices(undefined, pod, { name: 'plain', image: 'busybox' })).toEqual([]);
  });

  it('fails with Go\'s texts for a relative devicePath and for a volume not mapped', () => {
    expect(() => makeContainerDevices(mapped, pod, { ...container, volumeDevices: [{ name: 'disk', devicePath: 'dev/xvda' }] }))
      .toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG', message: 'error DevicePath `dev/xvda` must be an absolute path' }));
    expect(() => makeContainerDevices(mapped, pod, { ...container, volumeDevices: [{ name: 'other', devicePath: '/dev/xvdc' }] }))
      .toThrow(expect.objectContaining({ code: 'KLT_ERR_CONTAINER_CONFIG', message: 'cannot find volume "other" to pass into container "app"' }));
    expect(() => makeContainerDevices(undefined, pod, container)).toThrow(/cannot find volume "disk" to pass into container "app"/);
  });
});
