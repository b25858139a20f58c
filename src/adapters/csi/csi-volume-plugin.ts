/**
 * The CSI volume plugin over the registered drivers' Node services (Go v1.26: pkg/volume/csi's
 * csiAttacher WaitForAttach/MountDevice/UnmountDevice and csiMountMgr SetUpAt/TearDownAt).
 *
 * A PV: the driver's CSIDriver decides (attach required, pod info, fsGroup policy); the
 * VolumeAttachment is waited for when attach is required; with STAGE_UNSTAGE_VOLUME the volume is
 * staged once per node, then published per pod. An inline volume is only published. vol_data.json
 * beside each target is all teardown reads, so a volume set up before a restart is torn down the
 * same way; a staged volume is unstaged when no pod directory on the node publishes it any more.
 * Staging and unstaging of one volume are serialized, so two pods never race a stage against an
 * unstage. Secrets and tokens go to the driver only.
 */
import { rmdir, unlink } from 'node:fs/promises';
import { attachedInNodeStatus, csiUniqueVolumeName, nodeGetErrorMessage, notAttachedMessage } from '../../domain/csi/attached-volumes.js';
import { volumeAttachmentName, globalMountPaths, inlineVolumeHandle, podCsiVolumePaths } from '../../domain/csi/csi-paths.js';
import { csiDriverPolicy, lifecycleModeProblem, type CsiDriverPolicy } from '../../domain/csi/csi-driver.js';
import type { PodVolData } from '../../domain/csi/vol-data.js';
import { appliesFsGroup, csiAccessMode, podInfoKeys, publishVolumeContext, serviceAccountTokensValue } from '../../domain/csi/volume-request.js';
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import type { Clock } from '../../ports/clock.js';
import type { CsiDriverRegistry } from '../../ports/csi-drivers.js';
import type { CsiObjectApi } from '../../ports/csi-objects.js';
import type { CsiPersistentVolume, CsiVolumePlugin } from '../../ports/csi-volumes.js';
import type { ServiceAccountToken, TokenRequestSpec } from '../../ports/volume-sources.js';
import type { VolumeSetUpResult } from '../../ports/volumes.js';
import { setVolumeOwnership } from '../volumes/volume-ownership.js';
import { isMountPoint } from '../volumes/mount-table.js';
import { waitForAttachment } from './attachment-wait.js';
import { csiCallTimeoutMs, lazyCsiNodeClients, type CsiNodeClient, type CsiNodeClients } from './csi-node-client-types.js';
import { secretCredentials } from './csi-secrets.js';
import { csiVolumeStats } from './csi-volume-stats.js';
import { keyedLock } from './keyed-lock.js';
import { podsPublishing, readPodVolData, readStagingVolData, writeVolData } from './vol-data-files.js';

export interface CsiVolumePluginOptions {
  rootDir: string;
  nodeName: string;
  registry: CsiDriverRegistry;
  /** Absent standalone: no CSIDriver (Go's defaults), and no VolumeAttachment or Secret can be read. */
  api?: CsiObjectApi;
  /** The kubelet's token manager, for a CSIDriver's tokenRequests. */
  serviceAccountToken?: (spec: TokenRequestSpec) => Promise<ServiceAccountToken>;
  clock: Clock;
  /** Defaults to clients over `registry` (tests may pass their own). */
  clients?: CsiNodeClients;
  attachTimeoutMs?: number;
  attachPollMs?: number;
}

/** Go's prefix on the plugin's own messages (csi_plugin.go log()). */
const logged = (text: string) => `kubernetes.io/csi: ${text}`;
const failure = (text: string) => new KubeletError('KLT_ERR_VOLUME_MOUNT', text);
/** A token request's lifetime when the CSIDriver gives none (the API server's default). */
const defaultTokenSeconds = 3600;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Go's metav1.Time text: RFC 3339 in whole seconds. */
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface PublishRequest {
  pod: Pod;
  data: PodVolData;
  readOnly: boolean;
  fsType: string;
  mountOptions: string[];
  accessModes: string[] | undefined;
  attributes: Record<string, string> | undefined;
  secretRef: { namespace: string; name: string } | undefined;
  publishContext: Record<string, string>;
  stagingPath: string;
  policy: CsiDriverPolicy;
  clientOf: () => CsiNodeClient;
  capabilities: Set<string> | undefined;
}

export function createCsiVolumePlugin(opts: CsiVolumePluginOptions): CsiVolumePlugin & { close(): void } {
  const { rootDir, nodeName } = opts;
  const clients = opts.clients ?? lazyCsiNodeClients(opts.registry);
  /** Targets published by this process (a set-up after a restart publishes again: NodePublish is idempotent). */
  const published = new Set<string>();
  /** Volumes this process staged and has not unstaged since. */
  const stagedHere = new Set<string>();
  const serialized = keyedLock();
  const volumeKey = (driver: string, volumeHandle: string) => `${driver}/${volumeHandle}`;

  /** The driver's Node client; a driver not registered fails the operation `operation` names, in Go's words. */
  function clientFor(driver: string, operation: string): CsiNodeClient {
    try {
      return clients.get(driver);
    } catch (error) {
      throw failure(logged(`${operation}: ${messageOf(error)}`));
    }
  }

  async function policyOf(driver: string): Promise<CsiDriverPolicy> {
    return csiDriverPolicy(opts.api ? await opts.api.getCsiDriver(driver) : undefined);
  }

  async function tokenAttributes(pod: Pod, policy: CsiDriverPolicy): Promise<Record<string, string>> {
    if (policy.tokenRequests.length === 0) return {};
    if (!opts.serviceAccountToken) throw failure(logged('mounter.SetUpAt failed to get service accoount token attributes: ServiceAccountTokenGetter is nil'));
    const tokens = await Promise.all(policy.tokenRequests.map(async (request) => {
      const answer = await opts.serviceAccountToken!({
        namespace: pod.metadata.namespace ?? 'default',
        serviceAccountName: pod.spec.serviceAccountName ?? 'default',
        audience: request.audience,
        expirationSeconds: request.expirationSeconds ?? defaultTokenSeconds,
        pod: { namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name, uid: pod.metadata.uid },
      });
      return { audience: request.audience, token: answer.token, expirationTimestamp: rfc3339(answer.expirationTimestampMs) };
    }));
    return { [podInfoKeys.serviceAccountTokens]: serviceAccountTokensValue(tokens) };
  }

  function volumeCapability(fsType: string, mountOptions: string[], accessModes: string[] | undefined, mountGroup: string) {
    return {
      mount: { fs_type: fsType, mount_flags: mountOptions, volume_mount_group: mountGroup },
      access_mode: { mode: csiAccessMode(accessModes) },
    };
  }

  /** The fsGroup handed to the driver (VOLUME_MOUNT_GROUP), or '' when the kubelet applies it itself or there is none. */
  const mountGroupOf = (pod: Pod, capabilities: Set<string>) => {
    const fsGroup = pod.spec.securityContext?.fsGroup;
    return capabilities.has('VOLUME_MOUNT_GROUP') && fsGroup !== undefined ? String(fsGroup) : '';
  };

  async function publish(request: PublishRequest): Promise<VolumeSetUpResult> {
    const { pod, data } = request;
    const paths = podCsiVolumePaths(rootDir, pod.metadata.uid, data.specVolID);
    const answer: VolumeSetUpResult = { hostPath: paths.mountPath, changed: false, ...(request.policy.requiresRepublish ? { requiresRemount: true } : {}) };
    // requiresRepublish: NodePublishVolume again (fresh tokens), never NodeStageVolume (Go's remount).
    if (published.has(paths.mountPath) && !request.policy.requiresRepublish) return answer;
    let client: CsiNodeClient;
    try {
      client = request.clientOf();
    } catch (error) {
      throw failure(logged(`mounter.SetUpAt failed to get CSI client: ${messageOf(error)}`));
    }
    const capabilities = request.capabilities ?? await client.capabilities();
    const secrets = request.secretRef ? await secretCredentials(opts.api, 'NodePublishSecretRef', request.secretRef.namespace, request.secretRef.name) : {};
    const volumeContext = {
      ...publishVolumeContext(request.attributes, pod, request.policy, data.volumeLifecycleMode),
      ...await tokenAttributes(pod, request.policy),
    };
    const mountGroup = mountGroupOf(pod, capabilities);
    // Written just before the call, so teardown finds whatever the driver may have published.
    await writeVolData(paths.dataDir, paths.volDataPath, data);
    await client.call.NodePublishVolume({
      volume_id: data.volumeHandle,
      publish_context: request.publishContext,
      staging_target_path: request.stagingPath,
      target_path: paths.mountPath,
      volume_capability: volumeCapability(request.fsType, request.mountOptions, request.accessModes, mountGroup),
      readonly: request.readOnly,
      secrets,
      volume_context: volumeContext,
    }, csiCallTimeoutMs).catch(async (error: unknown) => {
      // A final answer means nothing was published: the directory goes, as Go's removeMountDir does.
      if (error instanceof KubeletError && !error.retryable) await removeMountDir(paths.mountPath, paths.volDataPath, paths.dataDir).catch(() => undefined);
      throw error;
    });
    const fsGroup = pod.spec.securityContext?.fsGroup;
    if (mountGroup === '' && fsGroup !== undefined && appliesFsGroup({ fsGroup, readOnly: request.readOnly, policy: request.policy, fsType: request.fsType, accessModes: request.accessModes })) {
      try {
        const policy = pod.spec.securityContext?.fsGroupChangePolicy;
        await setVolumeOwnership(paths.mountPath, fsGroup, { readOnly: request.readOnly, ...(policy !== undefined ? { policy } : {}) });
      } catch (error) {
        throw failure(`applyFSGroup failed for vol ${data.volumeHandle}: ${messageOf(error)}`);
      }
    }
    published.add(paths.mountPath);
    return answer;
  }

  /** NodeStageVolume unless this process staged it, or a pod on the node already publishes it from its staging path. Called under the volume's lock. */
  async function stage(pod: Pod, pv: CsiPersistentVolume, client: CsiNodeClient, capabilities: Set<string>, publishContext: Record<string, string>): Promise<string> {
    const { driver, volumeHandle } = pv.source;
    const global = globalMountPaths(rootDir, driver, volumeHandle);
    const key = volumeKey(driver, volumeHandle);
    if (stagedHere.has(key)) return global.stagingPath;
    // After a restart: staged before, and published by a pod still, it is in use as it is.
    const staged = await readStagingVolData(global.volDataPath);
    if (!staged || (await podsPublishing(rootDir, driver, volumeHandle)).length === 0) {
      const ref = pv.source.nodeStageSecretRef;
      const secrets = ref?.name ? await secretCredentials(opts.api, 'NodeStageSecretRef', ref.namespace ?? '', ref.name) : {};
      await writeVolData(global.stagingPath, global.volDataPath, { volumeHandle, driverName: driver });
      await client.call.NodeStageVolume({
        volume_id: volumeHandle,
        publish_context: publishContext,
        staging_target_path: global.stagingPath,
        volume_capability: volumeCapability(pv.source.fsType ?? '', pv.mountOptions, pv.accessModes, mountGroupOf(pod, capabilities)),
        secrets,
        volume_context: { ...(pv.source.volumeAttributes ?? {}) },
      }, csiCallTimeoutMs).catch(async (error: unknown) => {
        // A final answer means nothing was staged: the staging directory goes, as Go's MountDevice cleans up.
        if (error instanceof KubeletError && !error.retryable) await removeMountDir(global.stagingPath, global.volDataPath, global.dataDir).catch(() => undefined);
        throw error;
      });
    }
    stagedHere.add(key);
    return global.stagingPath;
  }

  /**
   * Go's VerifyControllerAttachedVolume: the attach/detach controller lists the volume in the Node's
   * `status.volumesAttached` once it is attached. Checked until the volume is first published here.
   */
  async function verifyControllerAttached(pod: Pod, pvName: string, uniqueVolumeName: string): Promise<void> {
    const podRef = { name: pod.metadata.name, uid: pod.metadata.uid };
    let node;
    try {
      node = await opts.api!.getNode(nodeName);
    } catch (error) {
      throw failure(nodeGetErrorMessage(pvName, uniqueVolumeName, podRef, messageOf(error)));
    }
    if (!attachedInNodeStatus(node, uniqueVolumeName)) throw failure(notAttachedMessage(pvName, uniqueVolumeName, podRef));
  }

  async function setUpPersistent(pod: Pod, _volumeName: string, pv: CsiPersistentVolume, reportInUse?: (uniqueVolumeName: string) => void): Promise<VolumeSetUpResult> {
    const { driver, volumeHandle } = pv.source;
    if (!driver) throw failure(`PersistentVolume ${pv.pvName}: spec.csi.driver is empty`);
    if (!volumeHandle) throw failure(`PersistentVolume ${pv.pvName}: spec.csi.volumeHandle is empty`);
    const policy = await policyOf(driver);
    const problem = lifecycleModeProblem(driver, policy, 'Persistent');
    if (problem) throw failure(problem);
    const attachmentID = volumeAttachmentName(volumeHandle, driver, nodeName);
    let publishContext: Record<string, string> = {};
    const uniqueVolumeName = policy.attachRequired ? csiUniqueVolumeName(driver, volumeHandle) : undefined;
    if (uniqueVolumeName !== undefined) {
      reportInUse?.(uniqueVolumeName);
      if (!opts.api) throw failure(`volume ${volumeHandle} has GET error for volume attachment ${attachmentID}: no API server (standalone mode)`);
      if (!published.has(podCsiVolumePaths(rootDir, pod.metadata.uid, pv.pvName).mountPath)) await verifyControllerAttached(pod, pv.pvName, uniqueVolumeName);
      publishContext = await waitForAttachment({ api: opts.api, clock: opts.clock, timeoutMs: opts.attachTimeoutMs, pollMs: opts.attachPollMs }, volumeHandle, attachmentID);
    }
    const client = clientFor(driver, 'attacher.MountDevice failed to create newCsiDriverClient');
    const capabilities = await client.capabilities();
    // Stage and publish under the volume's lock: a teardown of another pod cannot unstage the
    // volume between this pod's stage and its publish.
    const answer = await serialized(volumeKey(driver, volumeHandle), async () => publish({
      pod,
      data: { specVolID: pv.pvName, volumeHandle, driverName: driver, nodeName, attachmentID, volumeLifecycleMode: 'Persistent' },
      readOnly: pv.readOnly,
      fsType: pv.source.fsType ?? '',
      mountOptions: pv.mountOptions,
      accessModes: pv.accessModes,
      attributes: pv.source.volumeAttributes,
      secretRef: pv.source.nodePublishSecretRef?.name ? { namespace: pv.source.nodePublishSecretRef.namespace ?? '', name: pv.source.nodePublishSecretRef.name } : undefined,
      publishContext,
      stagingPath: capabilities.has('STAGE_UNSTAGE_VOLUME') ? await stage(pod, pv, client, capabilities, publishContext) : '',
      policy,
      clientOf: () => client,
      capabilities,
    }));
    return uniqueVolumeName !== undefined ? { ...answer, uniqueVolumeName } : answer;
  }

  async function setUpInline(pod: Pod, volumeName: string): Promise<VolumeSetUpResult> {
    const source = (pod.spec.volumes ?? []).find((v) => v.name === volumeName)?.csi;
    if (!source) throw failure(`pod ${pod.metadata.namespace ?? 'default'}/${pod.metadata.name} has no csi volume "${volumeName}"`);
    if (!source.driver) throw failure(`volume "${volumeName}": csi.driver is empty`);
    const policy = await policyOf(source.driver);
    const problem = lifecycleModeProblem(source.driver, policy, 'Ephemeral');
    if (problem) throw failure(problem);
    const volumeHandle = inlineVolumeHandle(pod.metadata.uid, volumeName);
    return publish({
      pod,
      data: {
        specVolID: volumeName, volumeHandle, driverName: source.driver, nodeName,
        attachmentID: volumeAttachmentName(volumeHandle, source.driver, nodeName), volumeLifecycleMode: 'Ephemeral',
      },
      readOnly: source.readOnly === true,
      fsType: source.fsType ?? '',
      mountOptions: [],
      accessModes: undefined,
      attributes: source.volumeAttributes,
      secretRef: source.nodePublishSecretRef?.name ? { namespace: pod.metadata.namespace ?? 'default', name: source.nodePublishSecretRef.name } : undefined,
      publishContext: {},
      stagingPath: '',
      policy,
      clientOf: () => clients.get(source.driver),
      capabilities: undefined,
    });
  }

  /** Go's removeMountDir: the target (when not a mount point), then vol_data.json, then the volume's directory. */
  async function removeMountDir(target: string, volDataPath: string, dataDir: string): Promise<void> {
    if (await isMountPoint(target).catch(() => false)) throw failure(logged(`failed to remove dir [${target}]: still mounted`));
    for (const [remove, path] of [[rmdir, target], [unlink, volDataPath], [rmdir, dataDir]] as const) {
      try {
        await remove(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw failure(logged(`failed to remove [${path}]: ${messageOf(error)}`));
      }
    }
  }

  async function unstageIfUnused(driver: string, volumeHandle: string, client: CsiNodeClient): Promise<void> {
    const global = globalMountPaths(rootDir, driver, volumeHandle);
    await serialized(volumeKey(driver, volumeHandle), async () => {
      if ((await podsPublishing(rootDir, driver, volumeHandle)).length > 0) return;
      const staged = await readStagingVolData(global.volDataPath);
      if (!staged) return;
      if ((await client.capabilities()).has('STAGE_UNSTAGE_VOLUME')) {
        try {
          await client.call.NodeUnstageVolume({ volume_id: staged.volumeHandle, staging_target_path: global.stagingPath }, csiCallTimeoutMs);
        } catch (error) {
          throw failure(logged(`attacher.UnmountDevice failed: ${messageOf(error)}`));
        }
      }
      stagedHere.delete(volumeKey(driver, volumeHandle));
      await removeMountDir(global.stagingPath, global.volDataPath, global.dataDir);
    });
  }

  async function tearDown(podUid: string, dirName: string): Promise<void> {
    const paths = podCsiVolumePaths(rootDir, podUid, dirName);
    let data: PodVolData;
    try {
      data = await readPodVolData(paths.volDataPath);
    } catch (error) {
      // Nothing was ever published without the file: an empty leftover directory just goes.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return removeMountDir(paths.mountPath, paths.volDataPath, paths.dataDir);
      throw failure(logged(`unmounter failed to load volume data file [${paths.mountPath}]: ${messageOf(error)}`));
    }
    const client = clientFor(data.driverName, 'Unmounter.TearDownAt failed to get CSI client');
    try {
      await client.call.NodeUnpublishVolume({ volume_id: data.volumeHandle, target_path: paths.mountPath }, csiCallTimeoutMs);
    } catch (error) {
      throw failure(logged(`mounter.TearDownAt failed: ${messageOf(error)}`));
    }
    published.delete(paths.mountPath);
    await removeMountDir(paths.mountPath, paths.volDataPath, paths.dataDir);
    if (data.volumeLifecycleMode === 'Persistent') await unstageIfUnused(data.driverName, data.volumeHandle, client);
  }

  async function tearDownDevice(driverName: string, volumeHandle: string): Promise<void> {
    if (!(await readStagingVolData(globalMountPaths(rootDir, driverName, volumeHandle).volDataPath))) return;
    await unstageIfUnused(driverName, volumeHandle, clientFor(driverName, 'attacher.UnmountDevice failed to create newCsiDriverClient'));
  }

  return {
    setUpPersistent, setUpInline, tearDown, tearDownDevice,
    volumeStats: (podUid, dirName) => csiVolumeStats(clients, rootDir, podUid, dirName),
    close: () => clients.close(),
  };
}
