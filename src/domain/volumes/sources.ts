/**
 * The volume sources of core/v1 a kubelet-ts node mounts (the fields the Go kubelet's plugins read),
 * and the payload a volume's content is written from. Types only: the API's shapes, as a manifest or
 * the API server carries them.
 */
import type { ObjectFieldSelector, ResourceFieldSelector } from '../pod/types.js';

/** One key of a ConfigMap, Secret or downward API projected to a relative path. */
export interface KeyToPath { key: string; path: string; mode?: number }

export interface EmptyDirVolumeSource { medium?: '' | 'Memory' | 'HugePages'; sizeLimit?: string }

export type HostPathType = '' | 'DirectoryOrCreate' | 'Directory' | 'FileOrCreate' | 'File' | 'Socket' | 'CharDevice' | 'BlockDevice';
export interface HostPathVolumeSource { path: string; type?: HostPathType }

export interface ConfigMapVolumeSource { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean }
export interface SecretVolumeSource { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean }

export interface DownwardAPIVolumeFile {
  path: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}
export interface DownwardAPIVolumeSource { items?: DownwardAPIVolumeFile[]; defaultMode?: number }

export interface ServiceAccountTokenProjection { audience?: string; expirationSeconds?: number; path: string }
export interface ConfigMapProjection { name?: string; items?: KeyToPath[]; optional?: boolean }
export interface SecretProjection { name?: string; items?: KeyToPath[]; optional?: boolean }
export interface DownwardAPIProjection { items?: DownwardAPIVolumeFile[] }
export interface VolumeProjection {
  secret?: SecretProjection;
  configMap?: ConfigMapProjection;
  downwardAPI?: DownwardAPIProjection;
  serviceAccountToken?: ServiceAccountTokenProjection;
}
export interface ProjectedVolumeSource { sources?: VolumeProjection[]; defaultMode?: number }

export interface PersistentVolumeClaimVolumeSource { claimName: string; readOnly?: boolean }

/** An inline CSI volume of a pod (a driver with the Ephemeral lifecycle mode). */
export interface CsiVolumeSource {
  driver: string;
  readOnly?: boolean;
  fsType?: string;
  volumeAttributes?: Record<string, string>;
  nodePublishSecretRef?: { name?: string };
}

/** A generic ephemeral volume: the claim `<pod>-<volume>` the ephemeral-volume controller makes from the template. */
export interface EphemeralVolumeSource { volumeClaimTemplate?: { metadata?: Record<string, unknown>; spec: Record<string, unknown> } }

/** A pod's volume: its name and one source. Sources kubelet-ts does not mount are kept as given. */
export interface Volume {
  name: string;
  emptyDir?: EmptyDirVolumeSource;
  hostPath?: HostPathVolumeSource;
  configMap?: ConfigMapVolumeSource;
  secret?: SecretVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  projected?: ProjectedVolumeSource;
  persistentVolumeClaim?: PersistentVolumeClaimVolumeSource;
  csi?: CsiVolumeSource;
  ephemeral?: EphemeralVolumeSource;
  [source: string]: unknown;
}

/** What a ConfigMap or Secret holds, as the volume and env code read it: every value as bytes. */
export interface KeyedData {
  /** ConfigMap data (UTF-8) and binaryData, or Secret data (decoded from base64) and stringData. */
  data: Record<string, Buffer>;
  /** A ConfigMap's binaryData keys: volumes hold them, env never sees them (Go reads only `data` there). */
  binaryKeys?: string[];
  /** A Secret's type (`kubernetes.io/dockerconfigjson`…): image pull secrets are read by it. */
  type?: string;
}

/**
 * A file of a volume's content: the relative path, its bytes and its mode (0o644 style). `fsUser`:
 * the file is chowned to this uid (Go's FileProjection.FsUser: a projected token of a pod whose
 * containers all run as one user).
 */
export interface PayloadFile { path: string; content: Buffer; mode: number; fsUser?: number }

/** A volume's whole content, by relative path: what the atomic writer makes the directory hold. */
export type Payload = Map<string, PayloadFile>;
