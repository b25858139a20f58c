/**
 * The node's device plugins as the device manager reaches them (Go: pkg/kubelet/cm/devicemanager):
 * the Registration server on kubelet.sock, each plugin's ListAndWatch stream, and, for a container
 * about to start, the plugins' Allocate answers (cached and checkpointed) and PreStartContainer.
 * Implemented in src/adapters/device-plugins.
 */
import type { DeviceCheckpoint } from '../domain/device-manager/checkpoint.js';
import type { ContainerDeviceRuntime } from '../domain/device-manager/container-allocation.js';
import type { DeviceInventoryEntry } from '../domain/device-manager/devices.js';
import type { HistogramCounts } from '../domain/kubelet-server/histogram-counts.js';

/** kubelet_device_plugin_registration_total and kubelet_device_plugin_alloc_duration_seconds, by resource; the adapter adds to them. */
export interface DevicePluginMetrics {
  registrations: Record<string, number>;
  allocDurations: Record<string, HistogramCounts>;
}

export interface RegistrationHandlers {
  /** A Register call; refusal: the error it is answered with, null when the plugin is dialled next. */
  onRegisterReceived(resourceName: string, endpoint: string, refusal: string | null): void;
  /** The plugin answered GetDevicePluginOptions on its socket: it is registered. */
  onConnected(resourceName: string, socketPath: string): void;
}

export interface DeviceStreamHandlers {
  /** Each ListAndWatch answer: the resource's whole device list. */
  onDevices(devices: DeviceInventoryEntry[]): void;
  /** The stream ended (the plugin stopped, the connection broke); once. */
  onEnded(error: Error | null): void;
}

export interface DevicePluginHost {
  /**
   * Makes the directory (0750), removes every file in it but the checkpoint (Go does, so plugins
   * see a restart), then serves Registration on its kubelet.sock until stopped. Rejects when it
   * cannot listen.
   */
  serveRegistration(dir: string, handlers: RegistrationHandlers): Promise<{ stop(): Promise<void> }>;
  /** ListAndWatch on the plugin's socket, until stopped or the stream ends. */
  listAndWatch(resourceName: string, socketPath: string, handlers: DeviceStreamHandlers): { stop(): void };
  /** The healthy devices per resource, as the checkpoint's RegisteredDevices keeps them. */
  setRegistered(registered: Record<string, string[]>): void;
}

/** What a container about to start gets from the plugins of the devices admission gave it. */
export interface ContainerDeviceAllocator {
  /**
   * The Allocate answers for the container's devices (per resource; asked once, then cached and
   * checkpointed), merged as Go's deviceRunContainerOptions merges them; PreStartContainer first
   * when a plugin asks for it. Rejects with the plugin's error, naming the resource.
   */
  containerDevices(podUid: string, containerName: string, devices: Record<string, string[]>): Promise<ContainerDeviceRuntime>;
  /** The containers that hold devices now, by pod uid (admission's assignments): the checkpoint's entries follow. */
  setHeld(held: Record<string, Record<string, Record<string, string[]>>>): void;
}

/** The checkpoint file, read once at start-up. */
export interface DeviceCheckpointReader {
  /** null when there is none; rejects naming the file when it cannot be read or is corrupt. */
  read(dir: string): Promise<DeviceCheckpoint | null>;
}
