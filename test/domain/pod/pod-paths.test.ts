import { describe, expect, it } from 'vitest';
import {
  containerLogDirectory,
  containerLogPath,
  podLogDirectory,
  isBelowPath,
  isSameOrBelowPath,
  podContainerDirectory,
  podDirectory,
  podEtcHostsPath,
  podPluginDirectory,
  podsDirectory,
  podVolumeDevicePath,
  podVolumeDirectory,
  podVolumesDirectory,
  safeSegment,
} from '../../../src/domain/pod/pod-paths.js';
import { volumeHostPath } from '../../../src/domain/volumes/pod-volumes.js';

const root = '/var/lib/kubelet';
const hostile = ['..', '.', '', '../../../victim-uid', 'a/b', '/etc', 'a\0b', 'x'.repeat(256)];

describe('pod paths', () => {
  it('are built under <root>/pods/<uid>, the root written with or without a trailing slash', () => {
    expect(podsDirectory(`${root}/`)).toBe('/var/lib/kubelet/pods');
    expect(podDirectory(root, 'u1')).toBe('/var/lib/kubelet/pods/u1');
    expect(podVolumesDirectory(root, 'u1')).toBe('/var/lib/kubelet/pods/u1/volumes');
    expect(podPluginDirectory(root, 'u1', 'kubernetes.io/configmap')).toBe('/var/lib/kubelet/pods/u1/volumes/kubernetes.io~configmap');
    expect(podVolumeDirectory(root, 'u1', 'kubernetes.io/empty-dir', 'data')).toBe('/var/lib/kubelet/pods/u1/volumes/kubernetes.io~empty-dir/data');
    expect(podVolumeDevicePath(root, 'u1', 'kubernetes.io/local-volume', 'pv-1')).toBe('/var/lib/kubelet/pods/u1/volumeDevices/kubernetes.io~local-volume/pv-1');
    expect(() => podVolumeDevicePath(root, 'u1', 'kubernetes.io/local-volume', '../x')).toThrow(/volume name/);
    expect(podContainerDirectory(`${root}//`, 'u1', 'app')).toBe('/var/lib/kubelet/pods/u1/containers/app');
    expect(podEtcHostsPath(root, 'u1')).toBe('/var/lib/kubelet/pods/u1/etc-hosts');
  });

  it('keep a segment that merely contains dots or colons', () => {
    expect(podDirectory(root, '..a')).toBe('/var/lib/kubelet/pods/..a');
    expect(podVolumeDirectory(root, 'u1:a', 'kubernetes.io/empty-dir', 'a:b')).toBe('/var/lib/kubelet/pods/u1:a/volumes/kubernetes.io~empty-dir/a:b');
  });

  it.each(hostile)('refuse the pod uid %j, naming it', (uid) => {
    expect(() => podDirectory(root, uid)).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining(`pod uid ${JSON.stringify(uid)}`) }));
    expect(() => podEtcHostsPath(root, uid)).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
    expect(() => podContainerDirectory(root, uid, 'app')).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
    expect(() => podVolumesDirectory(root, uid)).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
  });

  it.each(hostile)('refuse the volume name %j, naming it', (name) => {
    expect(() => podVolumeDirectory(root, 'u1', 'kubernetes.io/empty-dir', name)).toThrow(
      expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining(`volume name ${JSON.stringify(name)}`) }),
    );
  });

  it.each(hostile)('refuse the container name %j', (name) => {
    expect(() => podContainerDirectory(root, 'u1', name)).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining('container name') }));
  });

  it("refuse the emptyDir named ../../../../../../victim-vol, which pointed outside the root", () => {
    expect(() => volumeHostPath(root, 'u1', { name: '../../../../../../victim-vol', emptyDir: {} })).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
    expect(volumeHostPath(root, 'u1', { name: 'h', hostPath: { path: '/srv/data' } })).toBe('/srv/data');
  });

  it('put a CSI volume\'s content at the driver\'s publish target, `mount` in the volume\'s directory', () => {
    expect(volumeHostPath(root, 'u1', { name: 'c', csi: { driver: 'd' } })).toBe(`${root}/pods/u1/volumes/kubernetes.io~csi/c/mount`);
  });

  it('refuse an empty root, and keep a relative one relative', () => {
    expect(() => podsDirectory('')).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE', message: '"/pods" is not below the kubelet\'s root "."' }));
    expect(podsDirectory('relative/root')).toBe('relative/root/pods');
    expect(podDirectory('.', 'u1')).toBe('pods/u1');
  });

  it('build the log paths under the pod logs directory, refusing a uid or container name that leaves it', () => {
    expect(podLogDirectory('/var/log/pods/', 'shop', 'web', 'u1')).toBe('/var/log/pods/shop_web_u1');
    expect(containerLogDirectory('/var/log/pods/shop_web_u1', 'app')).toBe('/var/log/pods/shop_web_u1/app');
    expect(containerLogPath('app', 3)).toBe('app/3.log');
    expect(() => podLogDirectory('/var/log/pods', 'shop', 'web', '../../../etc')).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE', message: expect.stringContaining('pod log directory') }));
    expect(() => containerLogDirectory('/var/log/pods/x', '..')).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
    expect(() => containerLogPath('../../x', 0)).toThrow(expect.objectContaining({ code: 'KLT_ERR_PATH_UNSAFE' }));
  });

  it('answer the segment itself when it is one', () => {
    expect(safeSegment('pod uid', '0b4c1f5e-9f37-4c1e-8f1e-2f7d1c0b6a11')).toBe('0b4c1f5e-9f37-4c1e-8f1e-2f7d1c0b6a11');
  });
});

describe('isSameOrBelowPath / isBelowPath', () => {
  it('compare cleaned paths, element by element', () => {
    expect(isSameOrBelowPath('/a/b', '/a')).toBe(true);
    expect(isSameOrBelowPath('/a', '/a/')).toBe(true);
    expect(isSameOrBelowPath('/ab', '/a')).toBe(false);
    expect(isSameOrBelowPath('/a/b/../../c', '/a')).toBe(false);
    expect(isSameOrBelowPath('/anything', '/')).toBe(true);
    expect(isBelowPath('/a', '/a')).toBe(false);
    expect(isBelowPath('/a/b', '/a')).toBe(true);
    expect(isBelowPath('a', '.')).toBe(true);
    expect(isBelowPath('../a', '.')).toBe(false);
  });
});
