/**
 * The node's CSI objects as Go's nodeinfomanager keeps them, as pure decisions: the CSINode
 * (storage.k8s.io/v1, named after the node, owned by the Node) with one entry per registered
 * driver, and on the Node the `csi.volume.kubernetes.io/nodeid` annotation (a JSON map driver →
 * node ID) and the drivers' topology labels. Each function answers the object to write, or null
 * when nothing changes (Go skips the write then).
 */
import type { ObjectMeta } from '../api/common-types.js';
import { byFirstCodeUnits } from '../text/code-unit-order.js';

export const NODE_ID_ANNOTATION = 'csi.volume.kubernetes.io/nodeid';
/** The in-tree plugins whose volumes go through CSI drivers on this node (Go: v1.MigratedPluginsAnnotationKey). */
export const MIGRATED_PLUGINS_ANNOTATION = 'storage.alpha.kubernetes.io/migrated-plugins';

export interface CsiNodeDriver {
  name: string;
  nodeID: string;
  topologyKeys: string[] | null;
  allocatable?: { count?: number };
}

export interface CsiNodeObject {
  apiVersion?: 'storage.k8s.io/v1';
  kind?: 'CSINode';
  metadata: ObjectMeta;
  spec: { drivers: CsiNodeDriver[] | null };
}

/** What a driver's NodeGetInfo told about this node. */
export interface DriverNodeInfo {
  name: string;
  nodeId: string;
  /** accessible_topology's segments. */
  topology: Record<string, string>;
  /** max_volumes_per_node; 0 or less: no limit. */
  maxVolumesPerNode: number;
}

/** Go's cap on the count (an int32 field). */
const MAX_INT32 = 2 ** 31 - 1;

/**
 * The in-tree plugins migrated to CSI in v1.26 with these gates (Go: csi_plugin.go's
 * migratedPlugins): GCE PD, AWS EBS, Cinder, Azure Disk and File always; vSphere, Portworx and RBD
 * by their gates (on, off, off by default). Sorted, as Go writes them.
 */
export function migratedPlugins(gates: Readonly<Record<string, boolean>>): string[] {
  const gated: [string, string, boolean][] = [
    ['kubernetes.io/vsphere-volume', 'CSIMigrationvSphere', true],
    ['kubernetes.io/portworx-volume', 'CSIMigrationPortworx', false],
    ['kubernetes.io/rbd', 'CSIMigrationRBD', false],
  ];
  const always = ['kubernetes.io/aws-ebs', 'kubernetes.io/azure-disk', 'kubernetes.io/azure-file', 'kubernetes.io/cinder', 'kubernetes.io/gce-pd'];
  return [...always, ...gated.filter(([, gate, on]) => gates[gate] ?? on).map(([plugin]) => plugin)].sort();
}

/** The CSINode with the migrated-plugins annotation as `plugins` says, or null when it says so already (Go: setMigrationAnnotation). */
export function withMigrationAnnotation(csiNode: CsiNodeObject, plugins: readonly string[]): CsiNodeObject | null {
  const annotations = { ...csiNode.metadata.annotations };
  const current = annotations[MIGRATED_PLUGINS_ANNOTATION] ?? '';
  const old = new Set(current === '' ? [] : current.split(','));
  if (old.size === plugins.length && plugins.every((p) => old.has(p))) return null;
  if (plugins.length > 0) annotations[MIGRATED_PLUGINS_ANNOTATION] = [...plugins].sort().join(',');
  else delete annotations[MIGRATED_PLUGINS_ANNOTATION];
  return { ...csiNode, metadata: { ...csiNode.metadata, annotations } };
}

/** The empty CSINode Go creates for its Node (CreateCSINode): owned by the Node, no drivers. */
export function newCsiNode(node: { name: string; uid: string }, plugins: readonly string[]): CsiNodeObject {
  const created: CsiNodeObject = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: node.name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid }] },
    spec: { drivers: [] },
  };
  return withMigrationAnnotation(created, plugins) ?? created;
}

function sameKeys(a: readonly string[] | null, b: readonly string[]): boolean {
  const set = new Set(a ?? []);
  return set.size === b.length && b.every((k) => set.has(k));
}

/** Go's keepAllocatableCount: the entry's count already says what the driver does. */
function sameCount(entry: CsiNodeDriver, max: number): boolean {
  const count = entry.allocatable?.count;
  return max <= 0 ? count === undefined : count === Math.min(max, MAX_INT32);
}

/**
 * The CSINode with the driver's entry added or replaced (Go: installDriverToCSINode): the entry of
 * that name dropped, a new one appended with the topology keys sorted and `allocatable.count` when
 * the driver gives a limit; null when the entry and the annotation are current.
 */
export function csiNodeWithDriver(csiNode: CsiNodeObject, driver: DriverNodeInfo, plugins: readonly string[]): CsiNodeObject | null {
  const keys = Object.keys(driver.topology).sort();
  const drivers = csiNode.spec.drivers ?? [];
  const existing = drivers.find((d) => d.name === driver.name);
  const entryCurrent = existing !== undefined && existing.nodeID === driver.nodeId && sameKeys(existing.topologyKeys, keys) && sameCount(existing, driver.maxVolumesPerNode);
  const annotated = withMigrationAnnotation(csiNode, plugins);
  if (entryCurrent && !annotated) return null;
  const entry: CsiNodeDriver = {
    name: driver.name,
    nodeID: driver.nodeId,
    topologyKeys: keys,
    ...(driver.maxVolumesPerNode > 0 ? { allocatable: { count: Math.min(driver.maxVolumesPerNode, MAX_INT32) } } : {}),
  };
  const base = annotated ?? csiNode;
  return { ...base, spec: { ...base.spec, drivers: [...drivers.filter((d) => d.name !== driver.name), entry] } };
}

/** The CSINode without the driver's entry, or null when it has none (Go: tryUninstallDriverFromCSINode). */
export function csiNodeWithoutDriver(csiNode: CsiNodeObject, driverName: string): CsiNodeObject | null {
  const drivers = csiNode.spec.drivers ?? [];
  if (!drivers.some((d) => d.name === driverName)) return null;
  return { ...csiNode, spec: { ...csiNode.spec, drivers: drivers.filter((d) => d.name !== driverName) } };
}

/** The Node's metadata as the node side reads it. */
export interface NodeMetadata { labels?: Record<string, string>; annotations?: Record<string, string>; resourceVersion?: string }

/** A change of the Node's labels and annotations: a strategic merge patch; null removes a key. */
export interface NodeMetadataChange {
  labels?: Record<string, string>;
  annotations?: Record<string, string | null>;
}

export type NodeDecision = { change: NodeMetadataChange | null } | { error: string };

/** Go's buildNodeIDMapFromAnnotation: the annotation's driver → node ID map, or the reason it cannot be read. */
function nodeIdMap(meta: NodeMetadata): { map: Record<string, string> } | { error: string } {
  const text = meta.annotations?.[NODE_ID_ANNOTATION] ?? '';
  if (text === '') return { map: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null) return { map: {} };
    if (typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) throw new Error('not a map of strings');
    return { map: { ...(parsed as Record<string, string>) } };
  } catch (err) {
    return { error: `failed to parse node's "${NODE_ID_ANNOTATION}" annotation value ("${text}") err=${err instanceof Error ? err.message : String(err)}` };
  }
}

/** As Go's json.Marshal writes a map: keys sorted. */
const mapJson = (map: Record<string, string>): string => JSON.stringify(Object.fromEntries(Object.entries(map).sort(byFirstCodeUnits)));

/**
 * The Node change for a registered driver (Go: updateNodeIDInNode and updateTopologyLabels): its
 * node ID in the annotation, its topology segments as labels. A label the node has with another
 * value is a collision, refused with Go's message.
 */
export function nodeWithDriver(meta: NodeMetadata, driver: Pick<DriverNodeInfo, 'name' | 'nodeId' | 'topology'>): NodeDecision {
  const ids = nodeIdMap(meta);
  if ('error' in ids) return ids;
  const { map } = ids;
  const change: NodeMetadataChange = {};
  if (map[driver.name] !== driver.nodeId) change.annotations = { [NODE_ID_ANNOTATION]: mapJson({ ...map, [driver.name]: driver.nodeId }) };
  for (const [key, value] of Object.entries(driver.topology)) {
    const current = meta.labels?.[key];
    if (current !== undefined && current !== value) return { error: `detected topology value collision: driver reported "${key}":"${value}" but existing label is "${key}":"${current}"` };
  }
  const newLabels = Object.entries(driver.topology).filter(([key]) => meta.labels?.[key] === undefined);
  if (newLabels.length > 0) change.labels = Object.fromEntries(newLabels);
  return { change: change.annotations || change.labels ? change : null };
}

/**
 * The Node change for a driver that left (Go: removeNodeIDFromNode): its node ID out of the
 * annotation, the annotation removed when no driver is left. Topology labels stay, as in Go.
 */
export function nodeWithoutDriver(meta: NodeMetadata, driverName: string): NodeDecision {
  const ids = nodeIdMap(meta);
  if ('error' in ids) return ids;
  const { map } = ids;
  if (!(driverName in map)) return { change: null };
  delete map[driverName];
  return { change: { annotations: { [NODE_ID_ANNOTATION]: Object.keys(map).length === 0 ? null : mapJson(map) } } };
}
