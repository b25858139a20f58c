/**
 * The device manager's side of the device plugins, in one place (Go: ManagerImpl's endpoints,
 * podDevices and checkpoint): the Registration server, each plugin's ListAndWatch stream, and for a
 * container about to start, its plugins' Allocate answers. An answer is asked once per container
 * and resource, cached, and kept in the checkpoint (AllocResp), so a restarted kubelet starts the
 * container again without asking; PreStartContainer is called before every start when the plugin
 * asked for it. The checkpoint is written again at every change of the devices registered or of
 * the devices the containers hold.
 * Go asks Allocate at admission; here admission is pure, so the first start asks.
 */
import { allocationFromCheckpoint, boundedAllocationOf } from './alloc-resp.js';
import { encodeContainerAllocateResponse } from './device-plugin-proto.js';
import { createListCoalescer, FLOOD_REPORT_MS, LIST_COALESCE_MS, type ListCoalescer } from './list-coalescer.js';
import type { DevicePluginClient, ListAndWatchAnswer } from './device-plugin-client.js';
import { checkpointPath, readDeviceCheckpoint, writeDeviceCheckpoint } from './checkpoint-file.js';
import { serveRegistration, type PluginOptions } from './registration-server.js';
import { NODE_WITHOUT_TOPOLOGY, type DeviceCheckpoint, type PodDevicesEntry } from '../../domain/device-manager/checkpoint.js';
import { mergeAllocations, type ContainerAllocation, type ContainerDeviceRuntime } from '../../domain/device-manager/container-allocation.js';
import { deviceListLimitError } from '../../domain/device-manager/device-list-limits.js';
import { devicesFromList, sameListedDevices, type ListedDevice } from '../../domain/device-manager/devices.js';
import { KubeletError } from '../../domain/errors.js';
import { newHistogramCounts, recordMs } from '../../domain/kubelet-server/histogram-counts.js';
import { DEFAULT_BUCKETS } from '../../domain/kubelet-server/prometheus-text.js';
import type { ContainerAllocateResponse__Output } from '../../generated/v1beta1/ContainerAllocateResponse.js';
import type { Logger } from '../../log.js';
import type { ContainerDeviceAllocator, DeviceCheckpointReader, DevicePluginHost, DevicePluginMetrics } from '../../ports/device-plugins.js';


/** The plugins' gRPC client, loaded by the first plugin: a node without one never loads @grpc/grpc-js. */
const connectDevicePlugin = async (socketPath: string): Promise<DevicePluginClient> => (await import('./device-plugin-client.js')).connectDevicePlugin(socketPath);

type Held = Record<string, Record<string, Record<string, string[]>>>;
interface CachedAllocation { deviceIds: string[]; allocResp: string; allocation: ContainerAllocation }

const key = (podUid: string, container: string, resource: string) => `${podUid}/${container}/${resource}`;
const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');

export function createDevicePluginHost(deps: { logger: Logger; nowMs(): number; metrics: DevicePluginMetrics }): DevicePluginHost & ContainerDeviceAllocator & DeviceCheckpointReader {
  const { logger } = deps;
  let dir: string | null = null;
  const plugins = new Map<string, { socketPath: string; options: PluginOptions }>();
  const topology = new Map<string, Map<string, number[]>>();
  let registered: Record<string, string[]> = {};
  let held: Held = {};
  const allocations = new Map<string, CachedAllocation>();
  const { metrics } = deps;
  let writing = Promise.resolve();

  const entries = (): PodDevicesEntry[] => {
    const out: PodDevicesEntry[] = [];
    for (const podUid of Object.keys(held).sort()) {
      for (const containerName of Object.keys(held[podUid]!).sort()) {
        for (const [resourceName, ids] of Object.entries(held[podUid]![containerName]!).sort(([a], [b]) => (a < b ? -1 : 1))) {
          const deviceIds: Record<string, string[]> = {};
          for (const id of ids) {
            const nodes = topology.get(resourceName)?.get(id) ?? [];
            for (const n of nodes.length > 0 ? nodes : [NODE_WITHOUT_TOPOLOGY]) (deviceIds[String(n)] ??= []).push(id);
          }
          const cached = allocations.get(key(podUid, containerName, resourceName));
          out.push({ podUid, containerName, resourceName, deviceIds, allocResp: cached && sameIds(cached.deviceIds, ids) ? cached.allocResp : null });
        }
      }
    }
    return out;
  };
  const writeCheckpoint = () => {
    if (dir === null) return;
    const target = dir;
    const checkpoint: DeviceCheckpoint = { entries: entries(), registeredDevices: registered };
    writing = writing.then(() => writeDeviceCheckpoint(target, checkpoint)).catch((err: unknown) => logger.error({ err }, 'Writing checkpoint encountered'));
  };

  const withPlugin = async <T>(resource: string, call: (c: DevicePluginClient) => Promise<T>): Promise<T> => {
    const plugin = plugins.get(resource);
    if (!plugin) throw new KubeletError('KLT_ERR_DEVICE_PLUGIN', `unknown Device Plugin ${resource}`, { retryable: true });
    const client = await connectDevicePlugin(plugin.socketPath);
    try {
      return await call(client);
    } finally {
      client.close();
    }
  };

  const allocate = async (podUid: string, containerName: string, resource: string, ids: string[]): Promise<ContainerAllocation> => {
    const k = key(podUid, containerName, resource);
    const cached = allocations.get(k);
    if (cached && sameIds(cached.deviceIds, ids)) return cached.allocation;
    const started = deps.nowMs();
    logger.info({ devices: ids, resourceName: resource }, 'Making allocation request for device plugin');
    let answer: ContainerAllocateResponse__Output;
    try {
      answer = await withPlugin(resource, (c) => c.allocate(ids));
    } finally {
      recordMs(metrics.allocDurations[resource] ??= newHistogramCounts(DEFAULT_BUCKETS), deps.nowMs() - started);
    }
    // Refused before it is merged or checkpointed: the container's start fails, naming the resource.
    const allocation = boundedAllocationOf(resource, answer);
    allocations.set(k, { deviceIds: [...ids], allocResp: encodeContainerAllocateResponse(answer).toString('base64'), allocation });
    writeCheckpoint();
    return allocation;
  };

  return {
    async serveRegistration(d, handlers) {
      dir = d;
      const served = await serveRegistration(d, {
        onRegisterReceived: (resourceName, endpoint, refusal) => {
          metrics.registrations[resourceName] = (metrics.registrations[resourceName] ?? 0) + 1;
          handlers.onRegisterReceived(resourceName, endpoint, refusal);
        },
        onConnected: handlers.onConnected,
      }, { logger, onPluginOptions: (resource, socketPath, options) => plugins.set(resource, { socketPath, options }) });
      writeCheckpoint();
      return served;
    },
    listAndWatch(resourceName, socketPath, handlers) {
      let stopped = false;
      let cancel: (() => void) | null = null;
      let coalescer: ListCoalescer<ListedDevice[]> | null = null;
      connectDevicePlugin(socketPath).then((client) => {
        if (stopped) {
          client.close();
          return;
        }
        coalescer = createListCoalescer<ListedDevice[]>({
          deliver: (listed) => {
            logger.info({ resource: resourceName, resourceCapacity: listed.length }, 'State pushed for device plugin');
            const devices = devicesFromList(listed);
            topology.set(resourceName, new Map(devices.map((d) => [d.id, d.numaNodes])));
            handlers.onDevices(devices);
          },
          same: sameListedDevices,
          onFlood: (passedOver) => logger.warn({ resource: resourceName, passedOver, intervalMs: LIST_COALESCE_MS }, 'Device plugin sends device lists faster than they are taken; only the latest of each interval is used'),
        });
        // A list over the bound is dropped (undecoded) before it is coalesced, so the last good one stays;
        // a plugin that keeps sending them is named once per FLOOD_REPORT_MS, with how many.
        let refused = 0;
        let refusalReportedAt = -Infinity;
        const take = (answer: ListAndWatchAnswer) => {
          const count = 'overBound' in answer ? answer.overBound : answer.devices.length;
          const refusal = deviceListLimitError(resourceName, count);
          if (refusal === null) {
            // The client leaves only lists over the same bound undecoded.
            if ('devices' in answer) coalescer?.push(answer.devices);
            return;
          }
          refused++;
          const now = deps.nowMs();
          if (now - refusalReportedAt < FLOOD_REPORT_MS) return;
          logger.error({ err: new KubeletError('KLT_ERR_DEVICE_PLUGIN', refusal), resource: resourceName, devices: count, refused }, 'Device plugin list refused');
          refused = 0;
          refusalReportedAt = now;
        };
        const stream = client.listAndWatch(take, (error) => {
          coalescer?.stop();
          client.close();
          if (stopped) return;
          logger.error({ err: error, resource: resourceName }, 'ListAndWatch ended unexpectedly for device plugin');
          handlers.onEnded(error);
        });
        cancel = () => {
          coalescer?.stop();
          stream.cancel();
          client.close();
        };
      }, (err: unknown) => {
        if (stopped) return;
        logger.error({ err, path: socketPath }, 'Unable to connect to device plugin client with socket path');
        handlers.onEnded(err instanceof Error ? err : new Error(String(err)));
      });
      return {
        stop: () => {
          stopped = true;
          cancel?.();
        },
      };
    },
    setRegistered(r) {
      registered = r;
      writeCheckpoint();
    },
    setHeld(h) {
      held = h;
      for (const k of [...allocations.keys()]) {
        const [podUid, container, resource] = k.split('/') as [string, string, string];
        if (!held[podUid]?.[container]?.[resource]) allocations.delete(k);
      }
      writeCheckpoint();
    },
    async containerDevices(podUid, containerName, devices) {
      const byResource: Record<string, ContainerAllocation> = {};
      for (const resource of Object.keys(devices).sort()) {
        const ids = devices[resource]!;
        if (ids.length === 0) continue;
        byResource[resource] = await allocate(podUid, containerName, resource, ids);
        if (plugins.get(resource)?.options.preStartRequired) {
          logger.info({ resourceName: resource, devices: ids }, 'Issuing a PreStartContainer call for container');
          await withPlugin(resource, (c) => c.preStartContainer(ids));
        }
      }
      const { runtime, conflicts } = mergeAllocations(byResource);
      for (const c of conflicts) {
        logger.error({ podUid, containerName, resourceName: c.resource, kind: c.kind, key: c.key, kept: c.kept, dropped: c.dropped }, 'Device plugin answers conflict, the first setting kept');
      }
      return runtime satisfies ContainerDeviceRuntime;
    },
    async read(d) {
      dir = d;
      const checkpoint = await readDeviceCheckpoint(d);
      if (!checkpoint) return null;
      registered = checkpoint.registeredDevices;
      held = {};
      for (const e of checkpoint.entries) {
        const ids = Object.values(e.deviceIds).flat();
        ((held[e.podUid] ??= {})[e.containerName] ??= {})[e.resourceName] = [...new Set(ids)];
        if (e.allocResp === null) continue;
        const restored = allocationFromCheckpoint(e.resourceName, e.allocResp);
        if (!restored.ok) {
          // The devices stay held; the container's next start asks its plugin again.
          logger.error({ path: checkpointPath(d), podUid: e.podUid, containerName: e.containerName, resourceName: e.resourceName, reason: restored.error }, 'Checkpointed Allocate answer refused');
          continue;
        }
        allocations.set(key(e.podUid, e.containerName, e.resourceName), { deviceIds: [...new Set(ids)], allocResp: e.allocResp, allocation: restored.allocation });
      }
      return checkpoint;
    },
  };
}
