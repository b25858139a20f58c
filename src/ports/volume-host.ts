/**
 * What runKubelet.newMainKubelet builds for volumes (Go's NewMainKubelet: the secret, configMap and
 * token managers and the volume plugin manager) from what the earlier phases found out.
 */
import type { ClaimApi, VolumeApi } from './apiserver.js';
import type { CsiDriverRegistry } from './csi-drivers.js';
import type { CsiObjectApi } from './csi-objects.js';
import type { CsiVolumePlugin } from './csi-volumes.js';
import type { PodFiles } from './pod-files.js';
import type { VolumeSources } from './volume-sources.js';
import type { VolumePlugins } from './volumes.js';

export interface VolumeHostOptions {
  rootDir: string;
  /**
   * The main API client; absent standalone (every ConfigMap, Secret, token or claim is then
   * refused, and a CSI driver's CSIDriver object is taken as absent).
   */
  api?: VolumeApi & ClaimApi & CsiObjectApi;
  /** The node's name: a claim's PV is checked against this Node's labels; a VolumeAttachment names it. */
  nodeName?: string;
  /** configMapAndSecretChangeDetectionStrategy: Watch, Cache or Get. */
  strategy: string;
  nodeAllocatable?: Record<string, string>;
}

export interface VolumeHost {
  sources: VolumeSources;
  plugins: VolumePlugins;
  files: PodFiles;
  /** The CSI volume plugin (a claim's CSI PV, an inline CSI volume), over the registered drivers. */
  csi: CsiVolumePlugin;
  /** The CSI drivers registered through plugins_registry (the plugin manager fills it). */
  csiDrivers: CsiDriverRegistry;
  /** Stops the managers' watches and timers. */
  close(): void;
}

export type VolumeHostFactory = (opts: VolumeHostOptions) => VolumeHost;
