/**
 * What runKubelet.newMainKubelet builds for volumes (Go's NewMainKubelet: the secret, configMap and
 * token managers and the volume plugin manager) from what the earlier phases found out.
 */
import type { ClaimApi, VolumeApi } from './apiserver.js';
import type { CsiVolumePlugin } from './csi-volumes.js';
import type { PodFiles } from './pod-files.js';
import type { VolumeSources } from './volume-sources.js';
import type { VolumePlugins } from './volumes.js';

export interface VolumeHostOptions {
  rootDir: string;
  /** The main API client; absent standalone (every ConfigMap, Secret, token or claim is then refused). */
  api?: VolumeApi & ClaimApi;
  /** The node's name: a claim's PV is checked against this Node's labels. */
  nodeName?: string;
  /** CSI volumes (a claim's PV with `spec.csi`); absent: every CSI driver is unknown. */
  csi?: CsiVolumePlugin;
  /** configMapAndSecretChangeDetectionStrategy: Watch, Cache or Get. */
  strategy: string;
  nodeAllocatable?: Record<string, string>;
}

export interface VolumeHost {
  sources: VolumeSources;
  plugins: VolumePlugins;
  files: PodFiles;
  /** Stops the managers' watches and timers. */
  close(): void;
}

export type VolumeHostFactory = (opts: VolumeHostOptions) => VolumeHost;
