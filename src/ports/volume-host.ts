/**
 * What runKubelet.newMainKubelet builds for volumes (Go's NewMainKubelet: the secret, configMap and
 * token managers and the volume plugin manager) from what the earlier phases found out.
 */
import type { VolumeApi } from './apiserver.js';
import type { CsiDriverRegistry } from './csi-drivers.js';
import type { CsiObjectApi } from './csi-objects.js';
import type { CsiVolumePlugin } from './csi-volumes.js';
import type { PodFiles } from './pod-files.js';
import type { VolumeSources } from './volume-sources.js';
import type { VolumePlugins } from './volumes.js';

export interface VolumeHostOptions {
  rootDir: string;
  /** The main API client; absent standalone (every ConfigMap, Secret or token is then refused). */
  api?: VolumeApi;
  /** configMapAndSecretChangeDetectionStrategy: Watch, Cache or Get. */
  strategy: string;
  nodeAllocatable?: Record<string, string>;
  /**
   * What the CSI volume plugin is built over, beside the registered drivers: this node's name (the
   * VolumeAttachment's), the CSIDriver/VolumeAttachment/Secret reads (absent standalone). Absent:
   * no CSI plugin, and a CSI volume fails with Go's unregistered-driver message.
   */
  csi?: { nodeName: string; api?: CsiObjectApi };
}

export interface VolumeHost {
  sources: VolumeSources;
  plugins: VolumePlugins;
  files: PodFiles;
  /** The CSI volume plugin, when built (`csi` given). */
  csi?: CsiVolumePlugin;
  /** The CSI drivers registered through plugins_registry (the plugin manager fills it). */
  csiDrivers: CsiDriverRegistry;
  /** Stops the managers' watches and timers. */
  close(): void;
}

export type VolumeHostFactory = (opts: VolumeHostOptions) => VolumeHost;
