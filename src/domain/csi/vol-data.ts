/**
 * The `vol_data.json` files the CSI plugin writes beside a volume (Go: csi_util.go saveVolumeData /
 * loadVolumeData, the keys of csi_mounter.go volDataKey): what teardown and reconstruction read
 * back after a restart, with no pod spec and no PV at hand. A pod volume's file names the spec
 * volume, the volume handle, the driver, the node, the VolumeAttachment and the lifecycle mode; the
 * staging directory's file only the handle and the driver. Encoded as Go's json.Encoder writes a
 * map: keys sorted, one line, a newline at the end.
 */
import { KubeletError } from '../errors.js';
import { byFirstCodeUnits } from '../text/code-unit-order.js';

export type VolumeLifecycleMode = 'Persistent' | 'Ephemeral';

export interface PodVolData {
  specVolID: string;
  volumeHandle: string;
  driverName: string;
  nodeName: string;
  attachmentID: string;
  volumeLifecycleMode: VolumeLifecycleMode;
}

export interface StagingVolData {
  volumeHandle: string;
  driverName: string;
}

export function encodeVolData(data: PodVolData | StagingVolData): string {
  const entries = Object.entries(data).sort(byFirstCodeUnits);
  return `${JSON.stringify(Object.fromEntries(entries))}\n`;
}

function parseObject(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${path}: not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${path}: not a JSON object`);
  return value as Record<string, unknown>;
}

function stringField(data: Record<string, unknown>, key: string, path: string): string {
  const value = data[key];
  if (typeof value !== 'string' || value === '') throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${path}: "${key}" is missing or not a non-empty string`);
  return value;
}

export function parseStagingVolData(text: string, path: string): StagingVolData {
  const data = parseObject(text, path);
  return { volumeHandle: stringField(data, 'volumeHandle', path), driverName: stringField(data, 'driverName', path) };
}

/** A pod volume's file; a file from before the lifecycle mode was recorded is Persistent, as Go reads it. */
export function parsePodVolData(text: string, path: string): PodVolData {
  const data = parseObject(text, path);
  const mode = data.volumeLifecycleMode ?? 'Persistent';
  if (mode !== 'Persistent' && mode !== 'Ephemeral') throw new KubeletError('KLT_ERR_VOLUME_MOUNT', `${path}: "volumeLifecycleMode" ${JSON.stringify(mode)} is neither Persistent nor Ephemeral`);
  return {
    specVolID: stringField(data, 'specVolID', path),
    volumeHandle: stringField(data, 'volumeHandle', path),
    driverName: stringField(data, 'driverName', path),
    nodeName: typeof data.nodeName === 'string' ? data.nodeName : '',
    attachmentID: typeof data.attachmentID === 'string' ? data.attachmentID : '',
    volumeLifecycleMode: mode,
  };
}
