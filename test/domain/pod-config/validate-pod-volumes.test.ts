import { describe, expect, it } from 'vitest';
import { decodePodsFromUrl, decodeStaticPod } from '../../../src/domain/pod-config/static-pod.js';
import { validatePod } from '../../../src/domain/pod-config/validate-pod.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import type { Volume } from '../../../src/domain/volumes/sources.js';

const ORIGIN = { source: 'file' as const, origin: '/etc/kubernetes/manifests/web.yaml', nodeName: 'node-1' };

/** A manifest with one container mounting every volume given, at /v/<index>. */
function manifest(volumes: unknown[], extra: { uid?: string; fsGroup?: number } = {}) {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web', ...(extra.uid !== undefined ? { uid: extra.uid } : {}) },
    spec: {
      ...(extra.fsGroup !== undefined ? { securityContext: { fsGroup: extra.fsGroup } } : {}),
      volumes,
      containers: [{
        name: 'main', image: 'busybox:1.36',
        volumeMounts: volumes.map((v, i) => ({ name: (v as { name: string }).name, mountPath: `/v/${i}` })),
      }],
    },
  };
}

const reasonOf = (doc: unknown): string => {
  const decoded = decodeStaticPod(doc, ORIGIN);
  expect(decoded.ok).toBe(false);
  return decoded.ok ? '' : decoded.reason;
};

describe('static pods Go would refuse are refused, naming the field (the reproduced findings)', () => {
  it('an emptyDir named ../../../../../../victim-vol (with an fsGroup)', () => {
    const reason = reasonOf(manifest([{ name: '../../../../../../victim-vol', emptyDir: {} }], { fsGroup: 4242 }));
    expect(reason).toContain('spec.volumes[0].name: Invalid value: "../../../../../../victim-vol": a lowercase RFC 1123 label must consist of lower case alphanumeric characters');
  });

  it('a metadata.uid that is a path (../../../victim-uid, a/b)', () => {
    expect(reasonOf(manifest([], { uid: '../../../victim-uid' }))).toContain('metadata.uid: Invalid value: "../../../victim-uid": must be a single path segment');
    expect(reasonOf(manifest([], { uid: 'a/b' }))).toContain('metadata.uid: Invalid value: "a/b"');
  });

  it('two volumes named d (the daemon crashed on the duplicate actor id)', () => {
    const reason = reasonOf(manifest([{ name: 'd', emptyDir: {} }, { name: 'd', emptyDir: {} }]));
    expect(reason).toContain('spec.volumes[1].name: Duplicate value: "d"');
  });

  it('a hostPath with ..', () => {
    expect(reasonOf(manifest([{ name: 'h', hostPath: { path: '/srv/../etc/x', type: 'DirectoryOrCreate' } }])))
      .toContain(`spec.volumes[0].hostPath.path: Invalid value: "/srv/../etc/x": must not contain '..'`);
  });

  it('a volume named Bad_Name.x', () => {
    expect(reasonOf(manifest([{ name: 'Bad_Name.x', emptyDir: {} }]))).toContain('spec.volumes[0].name: Invalid value: "Bad_Name.x"');
  });

  it('a volume with two sources', () => {
    expect(reasonOf(manifest([{ name: 'two', emptyDir: {}, hostPath: { path: '/srv/x' } }])))
      .toContain('spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type');
  });

  it('a mount of a volume that does not exist', () => {
    const doc = manifest([]);
    doc.spec.containers[0]!.volumeMounts = [{ name: 'nope', mountPath: '/x' }];
    expect(reasonOf(doc)).toContain('spec.containers[0].volumeMounts[0].name: Not found: "nope"');
  });

  it('reads an emptyDir sizeLimit written as a number as its text, as for every other quantity', () => {
    const decoded = decodeStaticPod(manifest([{ name: 'mem', emptyDir: { medium: 'Memory', sizeLimit: 64 } }]), ORIGIN);
    expect(decoded.ok && decoded.value.spec.volumes?.[0]?.emptyDir?.sizeLimit).toBe('64');
  });

  it('a volume source that is not an object, or a hostPath path that is not text', () => {
    expect(reasonOf(manifest([{ name: 'e', emptyDir: 'yes' }]))).toContain('spec.volumes[0].emptyDir: must be an object');
    expect(reasonOf(manifest([{ name: 'h', hostPath: { path: 7 } }]))).toContain('spec.volumes[0].hostPath.path: must be a string');
  });
});

const valid = (): Pod => ({
  metadata: { name: 'web-node-1', namespace: 'default', uid: '0f4e5b2c-7d1a-4c3b-9e8f-123456789abc' },
  spec: {
    containers: [{ name: 'main', image: 'busybox:1.36', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});

const withVolume = (volume: Volume) => (p: Pod) => { p.spec.volumes = [volume]; p.spec.containers[0]!.volumeMounts = [{ name: volume.name, mountPath: '/data' }]; };
const items = (...paths: string[]) => paths.map((path, i) => ({ key: `k${i}`, path }));

describe('validatePod: volumes and volume mounts (Go\'s ValidateVolumes, ValidateVolumeMounts)', () => {
  it('accepts a pod with every source kubelet-ts mounts, written as Go accepts them', () => {
    const pod = valid();
    pod.spec.volumes = [
      { name: 'data', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      { name: 'host', hostPath: { path: '/var/log/app', type: 'DirectoryOrCreate' } },
      { name: 'cm', configMap: { name: 'settings', items: [{ key: 'a', path: 'conf/a.yaml', mode: 0o600 }], defaultMode: 0o644 } },
      { name: 'sec', secret: { secretName: 'tls', items: [{ key: 'tls.crt', path: '.hidden/..x' }] } },
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'mem', resourceFieldRef: { containerName: 'main', resource: 'limits.memory' } }] } },
      { name: 'all', projected: { sources: [{ configMap: { name: 'c', items: items('x') } }, { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: "metadata.annotations['a.b/c']" } }] } }] } },
    ];
    pod.spec.containers[0]!.volumeMounts = pod.spec.volumes.map((v, i) => ({ name: v.name, mountPath: `/m/${i}`, subPath: i === 0 ? 'a/b' : '' }));
    expect(validatePod(pod)).toEqual([]);
  });

  it.each<[string, (p: Pod) => void, string]>([
    ['a volume without a name', (p) => { p.spec.volumes![0]!.name = ''; p.spec.containers[0]!.volumeMounts = []; }, 'spec.volumes[0].name: Required value'],
    ['a volume name of 64 characters', withVolume({ name: 'a'.repeat(64), emptyDir: {} }), 'must be no more than 63 characters'],
    ['a volume name with a colon', withVolume({ name: 'a:b', emptyDir: {} }), 'spec.volumes[0].name: Invalid value: "a:b"'],
    ['a volume with no source', withVolume({ name: 'data' }), 'spec.volumes[0]: Required value: must specify a volume type'],
    ['emptyDir medium Disk', withVolume({ name: 'data', emptyDir: { medium: 'Disk' as never } }), 'spec.volumes[0].emptyDir.medium: Unsupported value: "Disk": supported values: "", "HugePages", "HugePages-<size>", "Memory"'],
    ['a negative emptyDir sizeLimit', withVolume({ name: 'data', emptyDir: { sizeLimit: '-1Mi' } }), 'spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity'],
    ['an emptyDir sizeLimit that is no quantity', withVolume({ name: 'data', emptyDir: { sizeLimit: 'lots' } }), 'spec.volumes[0].emptyDir.sizeLimit: Invalid value: "lots"'],
    ['a hostPath without path', withVolume({ name: 'data', hostPath: { path: '' } }), 'spec.volumes[0].hostPath.path: Required value'],
    ['a relative hostPath', withVolume({ name: 'data', hostPath: { path: 'srv/data' } }), 'spec.volumes[0].hostPath.path: Invalid value: "srv/data": must be an absolute path'],
    ['a hostPath ending in ..', withVolume({ name: 'data', hostPath: { path: '/srv/..' } }), `spec.volumes[0].hostPath.path: Invalid value: "/srv/..": must not contain '..'`],
    ['a hostPath with a NUL', withVolume({ name: 'data', hostPath: { path: '/srv/a\0b' } }), 'spec.volumes[0].hostPath.path: Invalid value: "/srv/a\\u0000b": must not contain a NUL character'],
    ['a hostPath type Folder', withVolume({ name: 'data', hostPath: { path: '/srv', type: 'Folder' as never } }), 'spec.volumes[0].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"'],
    ['a configMap without name', withVolume({ name: 'data', configMap: {} }), 'spec.volumes[0].configMap.name: Required value'],
    ['a secret without secretName', withVolume({ name: 'data', secret: {} }), 'spec.volumes[0].secret.secretName: Required value'],
    ['a configMap item path with ..', withVolume({ name: 'data', configMap: { name: 'c', items: items('a/../../b') } }), `spec.volumes[0].configMap.items[0].path: Invalid value: "a/../../b": must not contain '..'`],
    ['an absolute configMap item path', withVolume({ name: 'data', configMap: { name: 'c', items: items('/etc/passwd') } }), 'spec.volumes[0].configMap.items[0].path: Invalid value: "/etc/passwd": must be a relative path'],
    ['a secret item path starting with ..', withVolume({ name: 'data', secret: { secretName: 's', items: items('..data') } }), `spec.volumes[0].secret.items[0].path: Invalid value: "..data": must not start with '..'`],
    ['a configMap item without key', withVolume({ name: 'data', configMap: { name: 'c', items: [{ key: '', path: 'x' }] } }), 'spec.volumes[0].configMap.items[0].key: Required value'],
    ['a configMap item without path', withVolume({ name: 'data', configMap: { name: 'c', items: [{ key: 'k', path: '' }] } }), 'spec.volumes[0].configMap.items[0].path: Required value'],
    ['a secret defaultMode of 01000', withVolume({ name: 'data', secret: { secretName: 's', defaultMode: 0o1000 } }), 'spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive'],
    ['a configMap item mode of -1', withVolume({ name: 'data', configMap: { name: 'c', items: [{ key: 'k', path: 'p', mode: -1 }] } }), 'spec.volumes[0].configMap.items[0].mode: Invalid value: -1'],
    ['a downwardAPI item path with ..', withVolume({ name: 'data', downwardAPI: { items: [{ path: '../x', fieldRef: { fieldPath: 'metadata.name' } }] } }), `spec.volumes[0].downwardAPI.path: Invalid value: "../x": must not contain '..'`],
    ['an absolute downwardAPI item path', withVolume({ name: 'data', downwardAPI: { items: [{ path: '/x', fieldRef: { fieldPath: 'metadata.name' } }] } }), 'spec.volumes[0].downwardAPI.path: Invalid value: "/x": must be a relative path'],
    ['a downwardAPI item without a field', withVolume({ name: 'data', downwardAPI: { items: [{ path: 'x' }] } }), 'spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required'],
    ['a downwardAPI item reading spec.nodeName', withVolume({ name: 'data', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'spec.nodeName' } }] } }), 'spec.volumes[0].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName"'],
    ['a downwardAPI defaultMode of 01777', withVolume({ name: 'data', downwardAPI: { defaultMode: 0o1777 } }), 'spec.volumes[0].downwardAPI.defaultMode: Invalid value: 1023'],
    ['a projected source of two kinds', withVolume({ name: 'data', projected: { sources: [{ configMap: { name: 'c' }, secret: { name: 's' } }] } }), 'spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source'],
    ['a projected item path written twice', withVolume({ name: 'data', projected: { sources: [{ configMap: { name: 'c', items: items('x') } }, { secret: { name: 's', items: items('x') } }] } }), 'spec.volumes[0].projected: Invalid value: "s": conflicting duplicate paths'],
    ['a projected configMap item path with ..', withVolume({ name: 'data', projected: { sources: [{ configMap: { name: 'c', items: items('../../x') } }] } }), `spec.volumes[0].projected.sources[0].configMap.items[0].path: Invalid value: "../../x": must not contain '..'`],
    ['a projected token path with ..', withVolume({ name: 'data', projected: { sources: [{ serviceAccountToken: { path: '../token' } }] } }), `spec.volumes[0].projected.path: Invalid value: "../token": must not contain '..'`],
    ['a projected token of 5 minutes', withVolume({ name: 'data', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 300 } }] } }), 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes'],
    ['a gitRepo directory with ..', withVolume({ name: 'data', gitRepo: { repository: 'https://x', directory: '../x' } }), `spec.volumes[0].gitRepo.directory: Invalid value: "../x": must not contain '..'`],
    ['a mount without name', (p) => { p.spec.containers[0]!.volumeMounts = [{ name: '', mountPath: '/x' }]; }, 'spec.containers[0].volumeMounts[0].name: Required value'],
    ['a mount without mountPath', (p) => { p.spec.containers[0]!.volumeMounts = [{ name: 'data', mountPath: '' }]; }, 'spec.containers[0].volumeMounts[0].mountPath: Required value'],
    ['two mounts at one path', (p) => { p.spec.containers[0]!.volumeMounts!.push({ name: 'data', mountPath: '/data' }); }, 'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique'],
    ['an absolute subPath', (p) => { p.spec.containers[0]!.volumeMounts![0]!.subPath = '/etc'; }, 'spec.containers[0].volumeMounts.subPath: Invalid value: "/etc": must be a relative path'],
    ['a subPath with ..', (p) => { p.spec.containers[0]!.volumeMounts![0]!.subPath = 'a/../../b'; }, `spec.containers[0].volumeMounts.subPath: Invalid value: "a/../../b": must not contain '..'`],
    ['an unknown mountPropagation', (p) => { p.spec.containers[0]!.volumeMounts![0]!.mountPropagation = 'Both' as never; }, 'spec.containers[0].volumeMounts.mountPropagation: Unsupported value: "Both": supported values: "Bidirectional", "HostToContainer", "None"'],
    ['Bidirectional propagation unprivileged', (p) => { p.spec.containers[0]!.volumeMounts![0]!.mountPropagation = 'Bidirectional'; }, 'spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers'],
    ['an init container mount of a missing volume', (p) => { p.spec.initContainers = [{ name: 'init', image: 'x', volumeMounts: [{ name: 'gone', mountPath: '/g' }] }]; }, 'spec.initContainers[0].volumeMounts[0].name: Not found: "gone"'],
  ])('rejects %s, with Go\'s field path and message', (_what, edit, expected) => {
    const pod = valid();
    edit(pod);
    const errors = validatePod(pod);
    expect(errors).toEqual(expect.arrayContaining([expect.stringContaining(expected)]));
  });

  it('reports a mount of an invalid volume as not found, as Go does (only volumes that passed can be mounted)', () => {
    const pod = valid();
    pod.spec.volumes = [{ name: 'Bad', emptyDir: {} }];
    pod.spec.containers[0]!.volumeMounts = [{ name: 'Bad', mountPath: '/b' }];
    expect(validatePod(pod)).toEqual([
      expect.stringContaining('spec.volumes[0].name: Invalid value: "Bad"'),
      'spec.containers[0].volumeMounts[0].name: Not found: "Bad"',
    ]);
  });

  it('accepts Bidirectional propagation for a privileged container, and HugePages media', () => {
    const pod = valid();
    pod.spec.containers[0]!.securityContext = { privileged: true };
    pod.spec.containers[0]!.volumeMounts![0]!.mountPropagation = 'Bidirectional';
    pod.spec.volumes = [{ name: 'data', emptyDir: { medium: 'HugePages-2Mi' as never } }];
    expect(validatePod(pod)).toEqual([]);
  });
});

describe('validatePod: the pod UID is one safe path segment', () => {
  it.each(['0f4e5b2c-7d1a-4c3b-9e8f-123456789abc', 'd41d8cd98f00b204e9800998ecf8427e', 'my-pod.v2_1', 'A'.repeat(128)])('accepts %s', (uid) => {
    const pod = valid();
    pod.metadata.uid = uid;
    expect(validatePod(pod)).toEqual([]);
  });

  it.each(['', '.', '..', '../x', 'a/b', '/abs', 'a\0b', 'u1:a', '.hidden', '-x', 'a b', 'é', 'A'.repeat(129)])('refuses %j', (uid) => {
    const pod = valid();
    pod.metadata.uid = uid;
    expect(validatePod(pod)).toEqual([expect.stringMatching(/^metadata\.uid: Invalid value: .*must be a single path segment of at most 128 characters/)]);
  });
});

describe('the http source (staticPodURL) refuses the same', () => {
  it('a PodList whose item has a path for a UID or a ../ volume name, naming the item', () => {
    const origin = { source: 'http' as const, origin: 'http://127.0.0.1:1/pods', nodeName: 'node-1' };
    const list = (item: unknown) => ({ apiVersion: 'v1', kind: 'PodList', items: [item] });
    const byUid = decodePodsFromUrl(list(manifest([], { uid: '../../../victim-uid' })), origin);
    expect(byUid.ok ? '' : byUid.reason).toContain('items[0].metadata.uid: Invalid value: "../../../victim-uid"');
    const byVolume = decodePodsFromUrl(list(manifest([{ name: '../../../../../../victim-vol', emptyDir: {} }])), origin);
    expect(byVolume.ok ? '' : byVolume.reason).toContain('items[0].spec.volumes[0].name: Invalid value: "../../../../../../victim-vol"');
  });
});
