import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/domain/pod/types.js';
import { mountedVolumesByPod } from '../../../src/domain/volume-manager/mounted-volumes.js';
import { decidePodSync } from '../../../src/domain/volume-manager/pod-sync.js';
import { decideRelease } from '../../../src/domain/volume-manager/release.js';
import type { VolumeManagerState } from '../../../src/domain/volume-manager/state.js';
import { decideVolumeMounted } from '../../../src/domain/volume-manager/volume-reports.js';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: {
    containers: [{
      name: 'main', image: 'busybox',
      volumeMounts: ['cfg', 'scratch', 'ram', 'tok', 'data'].map((name) => ({ name, mountPath: `/${name}` })),
    }],
    volumes: [
      { name: 'cfg', configMap: { name: 'c' } },
      { name: 'scratch', emptyDir: {} },
      { name: 'ram', emptyDir: { medium: 'Memory' } },
      { name: 'tok', projected: { sources: [] } },
      // A claim as the claims' plugin reports it: set up through its PV's plugin.
      { name: 'data', hostPath: { path: '/srv/data' } },
    ],
  },
};
const empty: VolumeManagerState = { pods: {}, sweeps: 0 };
const dir = (plugin: string, name: string) => `/var/lib/kubelet/pods/u1/volumes/${plugin}/${name}`;

function mountAll(): VolumeManagerState {
  let state = decidePodSync(empty, pod).state;
  for (const [name, plugin] of [['cfg', 'kubernetes.io~configmap'], ['scratch', 'kubernetes.io~empty-dir'], ['ram', 'kubernetes.io~empty-dir'], ['tok', 'kubernetes.io~projected']] as const) {
    state = decideVolumeMounted(state, { podUid: 'u1', volumeName: name, hostPath: dir(plugin, name), changed: true }).state;
  }
  return state;
}

describe('mountedVolumesByPod', () => {
  it('lists each mounted volume with where it is, its plugin and whether it counts as ephemeral storage; a volume not mounted yet is left out', () => {
    const [entry, ...rest] = mountedVolumesByPod(mountAll());
    expect(rest).toEqual([]);
    expect(entry?.pod).toEqual({ namespace: 'shop', name: 'web', uid: 'u1' });
    expect(entry?.volumes).toEqual([
      { name: 'cfg', hostPath: dir('kubernetes.io~configmap', 'cfg'), plugin: 'kubernetes.io/configmap', localEphemeral: true, contentVersion: 1 },
      { name: 'scratch', hostPath: dir('kubernetes.io~empty-dir', 'scratch'), plugin: 'kubernetes.io/empty-dir', localEphemeral: true, contentVersion: 1 },
      { name: 'ram', hostPath: dir('kubernetes.io~empty-dir', 'ram'), plugin: 'kubernetes.io/empty-dir', localEphemeral: false, contentVersion: 1 },
      { name: 'tok', hostPath: dir('kubernetes.io~projected', 'tok'), plugin: 'kubernetes.io/projected', localEphemeral: false, contentVersion: 1 },
    ]);
  });

  it('takes a claim\'s plugin and names from its PV as the set-up reported them', () => {
    const persistent = { claimName: 'data-claim', pvName: 'pv-1', plugin: 'kubernetes.io/csi' as const };
    const state = decideVolumeMounted(mountAll(), { podUid: 'u1', volumeName: 'data', hostPath: dir('kubernetes.io~csi', 'pv-1/mount'), changed: true, persistent }).state;
    expect(mountedVolumesByPod(state)[0]?.volumes.find((v) => v.name === 'data')).toEqual({
      name: 'data', hostPath: dir('kubernetes.io~csi', 'pv-1/mount'), plugin: 'kubernetes.io/csi', localEphemeral: false, persistent, contentVersion: 1,
    });
  });

  it('counts set-ups that changed the content; a remount that found it current keeps the state as it was', () => {
    const state = mountAll();
    const current = decideVolumeMounted(state, { podUid: 'u1', volumeName: 'cfg', hostPath: dir('kubernetes.io~configmap', 'cfg'), changed: false });
    expect(current.state).toBe(state);
    const changed = decideVolumeMounted(state, { podUid: 'u1', volumeName: 'cfg', hostPath: dir('kubernetes.io~configmap', 'cfg'), changed: true });
    expect(mountedVolumesByPod(changed.state)[0]?.volumes.find((v) => v.name === 'cfg')?.contentVersion).toBe(2);
  });

  it('lists no volume of a pod being released', () => {
    const released = decideRelease(mountAll(), 'u1', true).state;
    expect(mountedVolumesByPod(released)).toEqual([]);
  });
});
