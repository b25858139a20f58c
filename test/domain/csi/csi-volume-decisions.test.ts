import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attachmentState } from '../../../src/domain/csi/attachment.js';
import { csiDriverPolicy, lifecycleModeProblem } from '../../../src/domain/csi/csi-driver.js';
import { globalMountPaths, inlineVolumeHandle, podCsiVolumePaths, volumeAttachmentName } from '../../../src/domain/csi/csi-paths.js';
import { encodeVolData, parsePodVolData, parseStagingVolData } from '../../../src/domain/csi/vol-data.js';
import { appliesFsGroup, csiAccessMode, publishVolumeContext, serviceAccountTokensValue } from '../../../src/domain/csi/volume-request.js';
import type { Pod } from '../../../src/domain/pod/types.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('CSI paths and names', () => {
  it('puts a pod volume and a staged volume where Go v1.26 does', () => {
    expect(podCsiVolumePaths('/var/lib/kubelet', 'u1', 'pv-a')).toEqual({
      dataDir: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-a',
      mountPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-a/mount',
      volDataPath: '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~csi/pv-a/vol_data.json',
    });
    expect(globalMountPaths('/var/lib/kubelet/', 'drv.example.com', 'vol-1').stagingPath)
      .toBe(`/var/lib/kubelet/plugins/kubernetes.io/csi/drv.example.com/${sha('vol-1')}/globalmount`);
  });

  it('names the VolumeAttachment and an inline volume as Go does (the Go kubelet\'s inline id, seen in the lab)', () => {
    expect(volumeAttachmentName('h', 'd', 'n')).toBe(`csi-${sha('hdn')}`);
    expect(inlineVolumeHandle('a227874c-1cff-4b55-a6b9-34115072a132', 'v')).toBe('csi-0c63fc035d4e9747c591af16eee6e86e342691015d9aed9c160def22b08e29a4');
  });

  it('refuses a driver name that is not one path segment', () => {
    expect(() => globalMountPaths('/r', '../etc', 'h')).toThrow(/CSI driver name "..\/etc" contains "\/"/);
  });
});

describe('vol_data.json', () => {
  const data = { specVolID: 'pv', volumeHandle: 'h', driverName: 'd', nodeName: 'n', attachmentID: 'csi-x', volumeLifecycleMode: 'Persistent' as const };

  it('is written as Go\'s json.Encoder writes a map: sorted keys, a newline', () => {
    expect(encodeVolData(data)).toBe('{"attachmentID":"csi-x","driverName":"d","nodeName":"n","specVolID":"pv","volumeHandle":"h","volumeLifecycleMode":"Persistent"}\n');
    expect(encodeVolData({ volumeHandle: 'h', driverName: 'd' })).toBe('{"driverName":"d","volumeHandle":"h"}\n');
  });

  it('reads back what it wrote; a file without a lifecycle mode is Persistent; a bad file is named', () => {
    expect(parsePodVolData(encodeVolData(data), 'f')).toEqual(data);
    expect(parsePodVolData('{"specVolID":"v","volumeHandle":"h","driverName":"d"}', 'f').volumeLifecycleMode).toBe('Persistent');
    expect(parseStagingVolData('{"driverName":"d","volumeHandle":"h"}', 'f')).toEqual({ driverName: 'd', volumeHandle: 'h' });
    expect(() => parsePodVolData('{"specVolID":"v","driverName":"d"}', '/x/vol_data.json')).toThrow('/x/vol_data.json: "volumeHandle" is missing or not a non-empty string');
    expect(() => parsePodVolData('nope', '/x')).toThrow(/\/x: not JSON/);
    expect(() => parsePodVolData('{"specVolID":"v","volumeHandle":"h","driverName":"d","volumeLifecycleMode":"X"}', '/x')).toThrow(/neither Persistent nor Ephemeral/);
  });
});

describe('the CSIDriver policy', () => {
  it('has Go\'s defaults for an absent object and for unset fields', () => {
    expect(csiDriverPolicy(undefined)).toEqual({ attachRequired: true, podInfoOnMount: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false, volumeLifecycleModes: undefined, tokenRequests: [] });
    expect(csiDriverPolicy({})).toMatchObject({ attachRequired: true, volumeLifecycleModes: ['Persistent'] });
    expect(csiDriverPolicy({ attachRequired: false, podInfoOnMount: true, fsGroupPolicy: 'File', tokenRequests: [{ audience: 'vault', expirationSeconds: 600 }, {}] }))
      .toMatchObject({ attachRequired: false, podInfoOnMount: true, fsGroupPolicy: 'File', tokenRequests: [{ audience: 'vault', expirationSeconds: 600 }, { audience: '' }] });
  });

  it('allows a lifecycle mode as Go does, and says why not in Go\'s words', () => {
    expect(lifecycleModeProblem('d', csiDriverPolicy(undefined), 'Persistent')).toBeNull();
    expect(lifecycleModeProblem('d', csiDriverPolicy(undefined), 'Ephemeral')).toBe('volume mode "Ephemeral" not supported by driver d (no CSIDriver object)');
    expect(lifecycleModeProblem('d', csiDriverPolicy({ volumeLifecycleModes: ['Persistent'] }), 'Ephemeral')).toBe('volume mode "Ephemeral" not supported by driver d (only supports ["Persistent"])');
    expect(lifecycleModeProblem('d', csiDriverPolicy({ volumeLifecycleModes: ['Ephemeral'] }), 'Persistent')).toBe('volume mode "Persistent" not supported by driver d (only supports ["Ephemeral"])');
    expect(lifecycleModeProblem('d', csiDriverPolicy({ volumeLifecycleModes: ['Persistent', 'Ephemeral'] }), 'Ephemeral')).toBeNull();
  });
});

describe('what NodePublishVolume is asked with', () => {
  const pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u' }, spec: { containers: [], serviceAccountName: 'sa' } } as unknown as Pod;

  it('maps the first access mode as v1.26 does (ReadWriteOncePod gate off)', () => {
    expect(csiAccessMode(undefined)).toBe('SINGLE_NODE_WRITER');
    expect(csiAccessMode([])).toBe('SINGLE_NODE_WRITER');
    expect(csiAccessMode(['ReadWriteOnce', 'ReadOnlyMany'])).toBe('SINGLE_NODE_WRITER');
    expect(csiAccessMode(['ReadOnlyMany'])).toBe('MULTI_NODE_READER_ONLY');
    expect(csiAccessMode(['ReadWriteMany'])).toBe('MULTI_NODE_MULTI_WRITER');
    expect(csiAccessMode(['ReadWriteOncePod'])).toBe('SINGLE_NODE_WRITER');
    expect(csiAccessMode(['Bogus'])).toBe('UNKNOWN');
  });

  it('adds the pod\'s information only with podInfoOnMount, over an attribute of the same key', () => {
    expect(publishVolumeContext({ a: '1' }, pod, csiDriverPolicy({}), 'Persistent')).toEqual({ a: '1' });
    expect(publishVolumeContext({ a: '1', 'csi.storage.k8s.io/pod.name': 'spoofed' }, pod, csiDriverPolicy({ podInfoOnMount: true }), 'Ephemeral')).toEqual({
      a: '1', 'csi.storage.k8s.io/pod.name': 'p', 'csi.storage.k8s.io/pod.namespace': 'ns', 'csi.storage.k8s.io/pod.uid': 'u',
      'csi.storage.k8s.io/serviceAccount.name': 'sa', 'csi.storage.k8s.io/ephemeral': 'true',
    });
  });

  it('writes the tokens as Go marshals audience → TokenRequestStatus', () => {
    expect(serviceAccountTokensValue([{ audience: 'b', token: 't2', expirationTimestamp: '2026-01-01T00:00:00Z' }, { audience: '', token: 't1', expirationTimestamp: '2026-01-01T00:00:00Z' }]))
      .toBe('{"":{"token":"t1","expirationTimestamp":"2026-01-01T00:00:00Z"},"b":{"token":"t2","expirationTimestamp":"2026-01-01T00:00:00Z"}}');
  });

  it('applies an fsGroup per the driver\'s fsGroupPolicy as Go\'s supportsFSGroup decides', () => {
    const base = { fsGroup: 2000, readOnly: false, fsType: 'ext4', accessModes: ['ReadWriteOnce'] as string[] | undefined };
    const rwo = csiDriverPolicy({});
    expect(appliesFsGroup({ ...base, policy: rwo })).toBe(true);
    expect(appliesFsGroup({ ...base, fsGroup: undefined, policy: rwo })).toBe(false);
    expect(appliesFsGroup({ ...base, readOnly: true, policy: csiDriverPolicy({ fsGroupPolicy: 'File' }) })).toBe(false);
    expect(appliesFsGroup({ ...base, policy: csiDriverPolicy({ fsGroupPolicy: 'None' }) })).toBe(false);
    expect(appliesFsGroup({ ...base, fsType: '', accessModes: ['ReadWriteMany'], policy: csiDriverPolicy({ fsGroupPolicy: 'File' }) })).toBe(true);
    expect(appliesFsGroup({ ...base, fsType: '', policy: rwo })).toBe(false);
    expect(appliesFsGroup({ ...base, accessModes: ['ReadWriteMany'], policy: rwo })).toBe(false);
    expect(appliesFsGroup({ ...base, accessModes: undefined, policy: rwo })).toBe(true);
  });
});

describe('a VolumeAttachment\'s state', () => {
  it('is attached with its metadata, failed when deleted or in error, pending otherwise', () => {
    expect(attachmentState({ status: { attached: true, attachmentMetadata: { dev: '/dev/x' } } })).toEqual({ state: 'attached', publishContext: { dev: '/dev/x' } });
    expect(attachmentState({ status: { attached: true } })).toEqual({ state: 'attached', publishContext: {} });
    expect(attachmentState({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { attached: true } })).toEqual({ state: 'failed', message: 'volume attachment is being deleted' });
    expect(attachmentState({ status: { attached: false, attachError: { message: 'no such disk' } } })).toEqual({ state: 'failed', message: 'no such disk' });
    expect(attachmentState({})).toEqual({ state: 'pending' });
  });
});
