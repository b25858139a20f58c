import { describe, expect, it } from 'vitest';
import {
  csiNodeWithDriver, csiNodeWithoutDriver, migratedPlugins, MIGRATED_PLUGINS_ANNOTATION, newCsiNode, NODE_ID_ANNOTATION, nodeWithDriver, nodeWithoutDriver, withMigrationAnnotation,
  type CsiNodeObject, type DriverNodeInfo,
} from '../../../src/domain/csi/csi-node.js';

const PLUGINS = ['kubernetes.io/aws-ebs', 'kubernetes.io/gce-pd'];
const MOCK: DriverNodeInfo = { name: 'csi-mock.lab.k8s.io', nodeId: 'csi-mock.lab.k8s.io', topology: {}, maxVolumesPerNode: 0 };
const empty = (): CsiNodeObject => newCsiNode({ name: 'n1', uid: 'uid-1' }, PLUGINS);

describe('migratedPlugins', () => {
  it('lists v1.26\'s migrated in-tree plugins with the gates\' defaults, sorted', () => {
    expect(migratedPlugins({})).toEqual(['kubernetes.io/aws-ebs', 'kubernetes.io/azure-disk', 'kubernetes.io/azure-file', 'kubernetes.io/cinder', 'kubernetes.io/gce-pd', 'kubernetes.io/vsphere-volume']);
    expect(migratedPlugins({ CSIMigrationvSphere: false, CSIMigrationPortworx: true })).toContain('kubernetes.io/portworx-volume');
    expect(migratedPlugins({ CSIMigrationvSphere: false })).not.toContain('kubernetes.io/vsphere-volume');
  });
});

describe('newCsiNode', () => {
  it('is empty, named after the node, owned by the Node and annotated with the migrated plugins', () => {
    expect(empty()).toEqual({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: 'n1', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' }], annotations: { [MIGRATED_PLUGINS_ANNOTATION]: 'kubernetes.io/aws-ebs,kubernetes.io/gce-pd' } },
      spec: { drivers: [] },
    });
  });
});

describe('withMigrationAnnotation', () => {
  it('changes nothing when the annotation lists the same plugins in any order', () => {
    const node = { ...empty(), metadata: { ...empty().metadata, annotations: { [MIGRATED_PLUGINS_ANNOTATION]: 'kubernetes.io/gce-pd,kubernetes.io/aws-ebs' } } };
    expect(withMigrationAnnotation(node, PLUGINS)).toBeNull();
    expect(withMigrationAnnotation(node, [])?.metadata.annotations).toEqual({});
  });
});

describe('csiNodeWithDriver', () => {
  it('adds the driver\'s entry, with sorted topology keys and the count only when the driver gives a limit', () => {
    expect(csiNodeWithDriver(empty(), MOCK, PLUGINS)?.spec.drivers).toEqual([{ name: MOCK.name, nodeID: MOCK.nodeId, topologyKeys: [] }]);
    const limited = csiNodeWithDriver(empty(), { ...MOCK, topology: { 'zone.x/b': '1', 'zone.x/a': '2' }, maxVolumesPerNode: 3 }, PLUGINS);
    expect(limited?.spec.drivers).toEqual([{ name: MOCK.name, nodeID: MOCK.nodeId, topologyKeys: ['zone.x/a', 'zone.x/b'], allocatable: { count: 3 } }]);
  });

  it('is null when the entry is current, and replaces it (last in the list) when anything differs', () => {
    const other = { name: 'other', nodeID: 'o', topologyKeys: [] };
    const installed = csiNodeWithDriver({ ...empty(), spec: { drivers: [other] } }, MOCK, PLUGINS)!;
    expect(csiNodeWithDriver(installed, MOCK, PLUGINS)).toBeNull();
    const moved = csiNodeWithDriver({ ...installed, spec: { drivers: [...installed.spec.drivers!].reverse() } }, { ...MOCK, nodeId: 'new' }, PLUGINS);
    expect(moved?.spec.drivers).toEqual([other, { name: MOCK.name, nodeID: 'new', topologyKeys: [] }]);
    expect(csiNodeWithDriver(installed, { ...MOCK, maxVolumesPerNode: 5 }, PLUGINS)?.spec.drivers?.at(-1)?.allocatable).toEqual({ count: 5 });
  });

  it('caps the count at int32', () => {
    expect(csiNodeWithDriver(empty(), { ...MOCK, maxVolumesPerNode: 2 ** 40 }, PLUGINS)?.spec.drivers?.[0]?.allocatable).toEqual({ count: 2 ** 31 - 1 });
  });

  it('reads a CSINode whose drivers are null as one without drivers', () => {
    expect(csiNodeWithDriver({ ...empty(), spec: { drivers: null } }, MOCK, PLUGINS)?.spec.drivers).toHaveLength(1);
  });
});

describe('csiNodeWithoutDriver', () => {
  it('drops the entry, and is null when there is none', () => {
    const installed = csiNodeWithDriver(empty(), MOCK, PLUGINS)!;
    expect(csiNodeWithoutDriver(installed, MOCK.name)?.spec.drivers).toEqual([]);
    expect(csiNodeWithoutDriver(empty(), MOCK.name)).toBeNull();
  });
});

describe('nodeWithDriver', () => {
  it('adds the driver to the node ID annotation as a JSON map with sorted keys', () => {
    expect(nodeWithDriver({}, MOCK)).toEqual({ change: { annotations: { [NODE_ID_ANNOTATION]: '{"csi-mock.lab.k8s.io":"csi-mock.lab.k8s.io"}' } } });
    expect(nodeWithDriver({ annotations: { [NODE_ID_ANNOTATION]: '{"z":"1"}' } }, { ...MOCK, name: 'a', nodeId: '2' })).toEqual({ change: { annotations: { [NODE_ID_ANNOTATION]: '{"a":"2","z":"1"}' } } });
  });

  it('changes nothing when the annotation and the labels are current', () => {
    expect(nodeWithDriver({ annotations: { [NODE_ID_ANNOTATION]: '{"csi-mock.lab.k8s.io":"csi-mock.lab.k8s.io"}' }, labels: { zone: 'a' } }, { ...MOCK, topology: { zone: 'a' } })).toEqual({ change: null });
  });

  it('adds topology labels and refuses a label the node has with another value, with Go\'s message', () => {
    expect(nodeWithDriver({ annotations: { [NODE_ID_ANNOTATION]: '{"csi-mock.lab.k8s.io":"csi-mock.lab.k8s.io"}' } }, { ...MOCK, topology: { zone: 'a' } })).toEqual({ change: { labels: { zone: 'a' } } });
    expect(nodeWithDriver({ labels: { zone: 'b' } }, { ...MOCK, topology: { zone: 'a' } })).toEqual({ error: 'detected topology value collision: driver reported "zone":"a" but existing label is "zone":"b"' });
  });

  it('refuses an annotation that is not a JSON map of strings, naming it', () => {
    expect(nodeWithDriver({ annotations: { [NODE_ID_ANNOTATION]: '[1]' } }, MOCK)).toMatchObject({ error: expect.stringContaining(`failed to parse node's "${NODE_ID_ANNOTATION}" annotation value ("[1]")`) });
  });
});

describe('nodeWithoutDriver', () => {
  it('takes the driver out of the annotation, removing the annotation with the last one; labels stay', () => {
    expect(nodeWithoutDriver({ annotations: { [NODE_ID_ANNOTATION]: '{"a":"1","b":"2"}' } }, 'a')).toEqual({ change: { annotations: { [NODE_ID_ANNOTATION]: '{"b":"2"}' } } });
    expect(nodeWithoutDriver({ annotations: { [NODE_ID_ANNOTATION]: '{"a":"1"}' }, labels: { zone: 'a' } }, 'a')).toEqual({ change: { annotations: { [NODE_ID_ANNOTATION]: null } } });
    expect(nodeWithoutDriver({}, 'a')).toEqual({ change: null });
  });
});
