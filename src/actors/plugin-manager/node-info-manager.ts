/**
 * Go's CSI nodeinfomanager over the API port: the node's CSINode and the Node's annotation and
 * topology labels, each write a read-decide-write try (the decisions are src/domain/csi/csi-node.ts)
 * repeated as Go's updateBackoff does (4 tries, 10 ms × 5ⁿ apart), so a conflict (409, someone
 * wrote in between) or a short outage is ridden out; a longer one fails and the plugin
 * registration machine tries again a period later.
 */
import { csiNodeWithDriver, csiNodeWithoutDriver, newCsiNode, nodeWithDriver, nodeWithoutDriver, withMigrationAnnotation, type CsiNodeObject, type DriverNodeInfo, type NodeDecision, type NodeMetadata } from '../../domain/csi/csi-node.js';
import { KubeletError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { CsiNodeApi } from '../../ports/csi-node-api.js';

/** Go's updateBackoff: Steps 4, Duration 10 ms, Factor 5 (no jitter here). */
export const UPDATE_BACKOFF = { steps: 4, initialMs: 10, factor: 5 } as const;

export interface NodeInfoManagerDeps {
  api: () => CsiNodeApi;
  clock: Clock;
  backoff?: { steps: number; initialMs: number; factor: number };
}

export interface NodeInfoManager {
  /** InitializeCSINodeWithAnnotation, one try: the CSINode made when missing, its annotation set. */
  initializeCsiNode(nodeName: string, migratedPlugins: readonly string[]): Promise<void>;
  /** InstallCSIDriver: the Node's annotation and labels, then the CSINode's entry. */
  installDriver(nodeName: string, driver: DriverNodeInfo, migratedPlugins: readonly string[]): Promise<void>;
  /** UninstallCSIDriver: the CSINode's entry, then the Node's annotation. */
  uninstallDriver(nodeName: string, driverName: string): Promise<void>;
}

const isNotFound = (err: unknown) => err instanceof KubeletError && err.code === 'KLT_ERR_API_NOT_FOUND';
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createNodeInfoManager(deps: NodeInfoManagerDeps): NodeInfoManager {
  const backoff = deps.backoff ?? UPDATE_BACKOFF;
  const sleep = (ms: number) => new Promise<void>((resolve) => deps.clock.setTimeout(() => resolve(), ms));

  /** wait.ExponentialBackoff: `attempt` until it succeeds or the steps are spent; the errors aggregated as Go's message does. */
  async function withBackoff(what: string, attempt: () => Promise<void>): Promise<void> {
    const errors: string[] = [];
    let last: unknown;
    for (let step = 0; step < backoff.steps; step++) {
      if (step > 0) await sleep(backoff.initialMs * backoff.factor ** (step - 1));
      try {
        await attempt();
        return;
      } catch (err) {
        last = err;
        errors.push(messageOf(err));
      }
    }
    const retryable = last instanceof KubeletError ? last.retryable || last.code === 'KLT_ERR_API_CONFLICT' : false;
    throw new KubeletError(last instanceof KubeletError ? last.code : 'KLT_ERR_API_FAILED', `${what}: timed out waiting for the condition; caused by: [${errors.join(', ')}]`, { cause: last, retryable });
  }

  /** CreateCSINode: the Node's uid is its owner reference's. */
  async function createCsiNode(nodeName: string, plugins: readonly string[]): Promise<CsiNodeObject> {
    const node = await deps.api().getNode(nodeName);
    return deps.api().createCsiNode(newCsiNode({ name: nodeName, uid: node.metadata.uid ?? '' }, plugins));
  }

  async function getOrCreate(nodeName: string, plugins: readonly string[]): Promise<CsiNodeObject> {
    try {
      return await deps.api().getCsiNode(nodeName);
    } catch (err) {
      if (isNotFound(err)) return createCsiNode(nodeName, plugins);
      throw err;
    }
  }

  async function patchNode(nodeName: string, decide: (meta: NodeMetadata) => NodeDecision): Promise<void> {
    const node = await deps.api().getNode(nodeName);
    const decision = decide(node.metadata);
    if ('error' in decision) throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', decision.error);
    if (!decision.change) return;
    // The version read: a Node changed since is refused (409) and read again, as Go's update of a copy.
    await deps.api().patchNode(nodeName, { metadata: { ...decision.change, ...(node.metadata.resourceVersion ? { resourceVersion: node.metadata.resourceVersion } : {}) } });
  }

  return {
    async initializeCsiNode(nodeName, plugins) {
      let csiNode: CsiNodeObject;
      try {
        csiNode = await deps.api().getCsiNode(nodeName);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await createCsiNode(nodeName, plugins);
        return;
      }
      const annotated = withMigrationAnnotation(csiNode, plugins);
      if (annotated) await deps.api().updateCsiNode(annotated);
    },
    async installDriver(nodeName, driver, plugins) {
      if (driver.nodeId === '') throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', 'error adding CSI driver node info: driverNodeID must not be empty');
      await withBackoff('error updating Node object with CSI driver node info: error updating node', () => patchNode(nodeName, (meta) => nodeWithDriver(meta, driver)));
      await withBackoff('error updating CSINode object with CSI driver node info: error updating CSINode', async () => {
        const updated = csiNodeWithDriver(await getOrCreate(nodeName, plugins), driver, plugins);
        if (updated) await deps.api().updateCsiNode(updated);
      });
    },
    async uninstallDriver(nodeName, driverName) {
      await withBackoff('error uninstalling CSI driver from CSINode object: error updating CSINode', async () => {
        let csiNode: CsiNodeObject;
        try {
          csiNode = await deps.api().getCsiNode(nodeName);
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
        const updated = csiNodeWithoutDriver(csiNode, driverName);
        if (updated) await deps.api().updateCsiNode(updated);
      });
      await withBackoff('error removing CSI driver node info from Node object: error updating node', () => patchNode(nodeName, (meta) => nodeWithoutDriver(meta, driverName)));
    },
  };
}
