import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import {
  claimProcessingError, claimRefusal, ephemeralClaimRefusal, nodeAffinityRefusal, persistentVolumeMount, persistentVolumeRefusal, podVolumeClaim, volumeModeRefusal,
  type ClaimObject, type PersistentVolumeObject,
} from '../../../src/domain/volumes/claims.js';
import { volumeProcessingFailedMessage } from '../../../src/domain/volumes/pod-volumes.js';
import { requiresPermissionChange, skipsOwnershipChange } from '../../../src/domain/volumes/fs-group-modes.js';

const pod: Pod = { metadata: { name: 'web-0', namespace: 'apps', uid: 'pod-uid' }, spec: { containers: [] } };
const bound: ClaimObject = { metadata: { name: 'data', namespace: 'apps', uid: 'claim-uid' }, spec: { volumeName: 'pv-1' }, status: { phase: 'Bound' } };

describe('podVolumeClaim', () => {
  it('is the volume\'s own claim with its readOnly, or <pod>-<volume> for a generic ephemeral volume', () => {
    expect(podVolumeClaim(pod, { name: 'v', persistentVolumeClaim: { claimName: 'data', readOnly: true } })).toEqual({ claimName: 'data', readOnly: true, ephemeral: false });
    expect(podVolumeClaim(pod, { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } })).toEqual({ claimName: 'web-0-scratch', readOnly: false, ephemeral: true });
    expect(podVolumeClaim(pod, { name: 'e', emptyDir: {} })).toBeUndefined();
  });
});

describe('claimRefusal (getPVCExtractPV)', () => {
  it('refuses a claim being deleted, not bound, or without a volume name, with Go\'s texts', () => {
    expect(claimRefusal({ ...bound, metadata: { ...bound.metadata, deletionTimestamp: '2026-11-27T00:00:00Z' } })).toBe('PVC is being deleted');
    expect(claimRefusal({ ...bound, status: { phase: 'Pending' } })).toBe('PVC is not bound');
    expect(claimRefusal({ ...bound, spec: {} })).toBe('PVC has empty pvc.Spec.VolumeName');
    expect(claimRefusal(bound)).toBeNull();
    expect(claimProcessingError('apps', 'data', 'PVC is not bound')).toBe('error processing PVC apps/data: PVC is not bound');
  });
});

describe('ephemeralClaimRefusal (VolumeIsForPod)', () => {
  it('accepts only a claim the pod controls', () => {
    const owned = { ...bound, metadata: { ...bound.metadata, ownerReferences: [{ uid: 'pod-uid', controller: true }] } };
    expect(ephemeralClaimRefusal(pod, owned)).toBeNull();
    expect(ephemeralClaimRefusal(pod, { ...bound, metadata: { ...bound.metadata, ownerReferences: [{ uid: 'pod-uid' }] } }))
      .toBe('PVC apps/data was not created for pod apps/web-0 (pod is not owner)');
    expect(ephemeralClaimRefusal(pod, { ...bound, metadata: { ...bound.metadata, ownerReferences: [{ uid: 'other', controller: true }] } }))
      .toBe('PVC apps/data was not created for pod apps/web-0 (pod is not owner)');
  });
});

describe('persistentVolumeRefusal (getPVSpec)', () => {
  it('refuses a PV with no claimRef, or one for another claim', () => {
    expect(persistentVolumeRefusal('pv-1', { spec: {} }, 'claim-uid')).toBe('found PV object pv-1 but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim');
    expect(persistentVolumeRefusal('pv-1', { spec: { claimRef: { uid: 'x' } } }, 'claim-uid')).toBe('found PV object pv-1 but its pv.Spec.ClaimRef.UID x does not point to claim.UID claim-uid');
    expect(persistentVolumeRefusal('pv-1', { spec: { claimRef: { uid: 'claim-uid' } } }, 'claim-uid')).toBeNull();
  });

  it('refuses a Block volume that a container mounts', () => {
    expect(volumeModeRefusal('data', bound, { spec: { volumeMode: 'Block' } })).toBe('volume data has volumeMode Block, but is specified in volumeMounts');
    expect(volumeModeRefusal('data', bound, { spec: {} })).toBeNull();
  });

  it('refuses a Filesystem volume that a container maps as a device, and either mode used both ways', () => {
    const mapped = { mounted: false, mapped: true };
    expect(volumeModeRefusal('data', bound, { spec: {} }, mapped)).toBe('volume data has volumeMode Filesystem, but is specified in volumeDevices');
    expect(volumeModeRefusal('data', bound, { spec: { volumeMode: 'Block' } }, mapped)).toBeNull();
    expect(volumeModeRefusal('data', { ...bound, spec: { ...bound.spec, volumeMode: 'Block' } }, { spec: {} }, mapped)).toBeNull();
    const both = { mounted: true, mapped: true };
    expect(volumeModeRefusal('data', bound, { spec: { volumeMode: 'Block' } }, both)).toBe('volume data has volumeMode Block, but is specified in volumeMounts');
    expect(volumeModeRefusal('data', bound, { spec: { volumeMode: 'Filesystem' } }, both)).toBe('volume data has volumeMode Filesystem, but is specified in volumeDevices');
    expect(volumeModeRefusal('data', bound, { spec: { volumeMode: 'Block' } }, { mounted: false, mapped: false })).toBeNull();
  });
});

describe('nodeAffinityRefusal (CheckNodeAffinity)', () => {
  const pv: PersistentVolumeObject = { spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] }] } } } };
  it('refuses a node whose labels match no term, with Go\'s text', () => {
    expect(nodeAffinityRefusal(pv, { 'kubernetes.io/hostname': 'node-b' })).toBe('no matching NodeSelectorTerms');
    expect(nodeAffinityRefusal(pv, { 'kubernetes.io/hostname': 'node-a' })).toBeNull();
    expect(nodeAffinityRefusal({ spec: {} }, {})).toBeNull();
  });
});

describe('persistentVolumeMount', () => {
  const claim = { claimName: 'data', readOnly: false, ephemeral: false };
  it('picks the PV source\'s plugin, with its mountOptions and the claim\'s readOnly (or the CSI source\'s)', () => {
    expect(persistentVolumeMount(claim, 'pv-1', { spec: { local: { path: '/mnt/disks/a' }, mountOptions: ['noatime'] } })).toEqual({
      ref: { claimName: 'data', pvName: 'pv-1', plugin: 'kubernetes.io/local-volume' },
      volume: { plugin: 'kubernetes.io/local-volume', source: { path: '/mnt/disks/a' } },
      readOnly: false, mountOptions: ['noatime'], accessModes: [],
    });
    const hostPath = persistentVolumeMount({ ...claim, readOnly: true }, 'pv-2', { spec: { hostPath: { path: '/srv' } } });
    expect(typeof hostPath !== 'string' && [hostPath.ref.plugin, hostPath.readOnly]).toEqual(['kubernetes.io/host-path', true]);
    const csi = persistentVolumeMount(claim, 'pv-3', { spec: { csi: { driver: 'd', volumeHandle: 'h', readOnly: true }, accessModes: ['ReadWriteOnce'] } });
    expect(typeof csi !== 'string' && [csi.ref.plugin, csi.readOnly, csi.accessModes]).toEqual(['kubernetes.io/csi', true, ['ReadWriteOnce']]);
  });
  it('maps a Block local PV (its ref says block), and refuses a Block PV of any other source', () => {
    expect(persistentVolumeMount({ ...claim, readOnly: true }, 'pv-5', { spec: { local: { path: '/dev/loop3' }, volumeMode: 'Block' } })).toEqual({
      ref: { claimName: 'data', pvName: 'pv-5', plugin: 'kubernetes.io/local-volume', block: true },
      volume: { plugin: 'kubernetes.io/local-volume', source: { path: '/dev/loop3' }, block: true },
      readOnly: true, mountOptions: [], accessModes: [],
    });
    expect(persistentVolumeMount(claim, 'pv-6', { spec: { csi: { driver: 'd', volumeHandle: 'h' }, volumeMode: 'Block' } }))
      .toBe('failed to get Plugin from volumeSpec for volume "pv-6" err=no volume plugin matched: kubelet-ts maps raw block volumes of local PVs only');
  });
  it('answers Go\'s plugin error for a source no plugin handles', () => {
    expect(persistentVolumeMount(claim, 'pv-4', { spec: { nfs: { server: 's', path: '/' } } })).toBe('failed to get Plugin from volumeSpec for volume "pv-4" err=no volume plugin matched');
  });
});

describe('volumeProcessingFailedMessage', () => {
  it('is WaitForAttachAndMount\'s error with the failed volumes and their errors joined', () => {
    expect(volumeProcessingFailedMessage(['data'], ['data', 'cache'], [{ volumeName: 'data', message: 'error processing PVC apps/data: PVC is not bound' }]))
      .toBe('unmounted volumes=[data], unattached volumes=[cache data], failed to process volumes=[data]: error processing PVC apps/data: PVC is not bound');
  });
});

describe('fsGroupChangePolicy OnRootMismatch', () => {
  it('skips the walk only when the root has the group, the group bits, search and setgid', () => {
    const ok = { gid: 2000, mode: 0o2775, isDirectory: true };
    expect(requiresPermissionChange(ok, 2000, false)).toBe(false);
    expect(requiresPermissionChange({ ...ok, gid: 0 }, 2000, false)).toBe(true);
    expect(requiresPermissionChange({ ...ok, mode: 0o775 }, 2000, false)).toBe(true);
    expect(requiresPermissionChange({ ...ok, mode: 0o2755 }, 2000, false)).toBe(true);
    expect(requiresPermissionChange({ gid: 2000, mode: 0o640, isDirectory: false }, 2000, true)).toBe(false);
    expect(skipsOwnershipChange('OnRootMismatch', ok, 2000, false)).toBe(true);
    expect(skipsOwnershipChange('Always', ok, 2000, false)).toBe(false);
    expect(skipsOwnershipChange(undefined, ok, 2000, false)).toBe(false);
  });
});
