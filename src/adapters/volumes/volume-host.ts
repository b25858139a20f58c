/** The volume host of NewMainKubelet: the managers over the API client (or standalone), the plugins over the node. */
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import type { CsiDriverRegistry } from '../../ports/csi-drivers.js';
import type { Random } from '../../ports/random.js';
import type { VolumeHost, VolumeHostOptions } from '../../ports/volume-host.js';
import { createCsiVolumePlugin } from '../csi/csi-volume-plugin.js';
import { createPodFiles } from '../fs/pod-files.js';
import { createStandaloneVolumeSources, createVolumeSources } from '../volume-sources/create-volume-sources.js';
import type { ChangeDetectionStrategy } from '../volume-sources/object-manager.js';
import { createApiContentWriter } from './api-content.js';
import { systemMounter } from './mount-table.js';
import { createVolumePlugins } from './volume-plugins.js';

const strategies: readonly string[] = ['Watch', 'Cache', 'Get'];

function strategyOf(text: string): ChangeDetectionStrategy {
  if (!strategies.includes(text)) throw new KubeletError('KLT_ERR_CONFIG_INVALID', `configMapAndSecretChangeDetectionStrategy: unknown strategy "${text}"`);
  return text as ChangeDetectionStrategy;
}

export function createVolumeHost(deps: { clock: Clock; random: Random; logger: Logger; csiDrivers: CsiDriverRegistry }, opts: VolumeHostOptions): VolumeHost {
  const sources = opts.api
    ? createVolumeSources({ api: opts.api, clock: deps.clock, logger: deps.logger, strategy: strategyOf(opts.strategy) })
    : createStandaloneVolumeSources();
  const content = createApiContentWriter({ sources, clock: deps.clock, nodeAllocatable: () => opts.nodeAllocatable });
  const mounter = systemMounter();
  const csi = createCsiVolumePlugin({
    rootDir: opts.rootDir,
    nodeName: opts.nodeName ?? '',
    registry: deps.csiDrivers,
    ...(opts.api ? { api: opts.api } : {}),
    serviceAccountToken: (spec) => sources.serviceAccountToken(spec),
    clock: deps.clock,
  });
  const plugins = createVolumePlugins({
    rootDir: opts.rootDir, mounter, content, onPodGone: (uid) => sources.unregisterPod(uid), csi,
    ...(opts.api ? { claims: opts.api } : {}), ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
  });
  const close = () => {
    sources.close();
    mounter.close?.();
    csi.close();
  };
  return { sources, plugins, files: createPodFiles(opts.rootDir, deps.random), csi, csiDrivers: deps.csiDrivers, close };
}
