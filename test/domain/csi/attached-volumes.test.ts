import { describe, expect, it } from 'vitest';
import { attachedInNodeStatus, csiUniqueVolumeName, nodeGetErrorMessage, notAttachedMessage } from '../../../src/domain/csi/attached-volumes.js';

describe('attachable CSI volumes in the node status', () => {
  it('names a volume as Go\'s GetUniqueVolumeNameFromSpec does: the plugin, then <driver>^<volumeHandle>', () => {
    expect(csiUniqueVolumeName('csi-mock.lab.k8s.io', '1')).toBe('kubernetes.io/csi/csi-mock.lab.k8s.io^1');
  });

  it('finds the volume in status.volumesAttached by its exact unique name only', () => {
    const node = { metadata: { name: 'n' }, status: { volumesAttached: [{ name: 'kubernetes.io/csi/drv^10', devicePath: '' }] } };
    expect(attachedInNodeStatus(node, 'kubernetes.io/csi/drv^10')).toBe(true);
    expect(attachedInNodeStatus(node, 'kubernetes.io/csi/drv^1')).toBe(false);
    expect(attachedInNodeStatus({ metadata: { name: 'n' } }, 'kubernetes.io/csi/drv^10')).toBe(false);
  });

  it('words the failures as the operation generator\'s detailed errors', () => {
    const pod = { name: 'web-0', uid: 'u1' };
    expect(notAttachedMessage('pv-1', 'kubernetes.io/csi/drv^1', pod))
      .toBe('Volume not attached according to node status for volume "pv-1" (UniqueName: "kubernetes.io/csi/drv^1") pod "web-0" (UID: "u1") ');
    expect(nodeGetErrorMessage('pv-1', 'kubernetes.io/csi/drv^1', pod, 'connection refused'))
      .toBe('VerifyControllerAttachedVolume failed fetching node from API server for volume "pv-1" (UniqueName: "kubernetes.io/csi/drv^1") pod "web-0" (UID: "u1") : connection refused');
  });
});
