/**
 * The node's plugins as the plugin manager reaches them (Go: pkg/kubelet/pluginmanager): the
 * registration directory watched for sockets, the registration service each socket serves, and a
 * CSI driver's Node service for NodeGetInfo. Implemented in src/adapters/csi.
 */
import type { PluginInfo } from '../domain/csi/plugin-info.js';

export interface PluginSocketHandlers {
  /** A socket appeared (or was re-created) at this absolute path. */
  onCreated(socketPath: string): void;
  onRemoved(socketPath: string): void;
}

export interface PluginSocketWatcher {
  /**
   * Makes `dir` (0750) when missing, reports every socket already under it, then every socket
   * created or removed under it and its subdirectories, until stopped (Go: pluginwatcher.Watcher).
   * Dot-files, files that are not sockets and symlinked directories are ignored. Resolves once what
   * is there has been reported, or as soon as `signal` aborts (the watch then stopped). Rejects when
   * the directory cannot be made or watched.
   */
  watch(dir: string, handlers: PluginSocketHandlers, signal?: AbortSignal): Promise<{ stop(): void }>;
}

/** NodeGetInfo's answer. */
export interface CsiNodeInfo {
  nodeId: string;
  /** 0: the driver gives no limit. */
  maxVolumesPerNode: number;
  /** accessible_topology's segments ({} without). */
  topology: Record<string, string>;
}

export interface PluginClients {
  /** pluginregistration's GetInfo on the socket, with Go's dial and call deadlines. */
  getInfo(socketPath: string): Promise<PluginInfo>;
  /** pluginregistration's NotifyRegistrationStatus. */
  notifyRegistrationStatus(socketPath: string, status: { registered: boolean; error: string }): Promise<void>;
  /** csi.v1.Node/NodeGetInfo on the driver's endpoint, with Go's CSI timeout. */
  nodeGetInfo(endpoint: string): Promise<CsiNodeInfo>;
}
