/**
 * The DRA drivers whose kubelet plugins registered on this node (Go: pkg/kubelet/cm/dra/plugin's
 * DRAPluginManager store). The plugin manager writes it; the DRA plugin clients read from it which
 * endpoint and service to call for a driver.
 */
import type { DraPluginService } from '../domain/dra/plugin-services.js';

/** One registered plugin of a DRA driver. */
export interface RegisteredDraPlugin {
  driverName: string;
  /** The plugin's gRPC socket (an absolute path). */
  endpoint: string;
  /** The DRAPlugin service chosen at registration, which every call goes to. */
  service: DraPluginService;
}

export interface DraDriverRegistry {
  /**
   * The plugin to call for a driver, as Go picks it: the last registered of those whose gRPC
   * connection is up, else the last registered. Undefined: none registered.
   */
  get(driverName: string): RegisteredDraPlugin | undefined;
  /** Whether a plugin of the driver has its gRPC connection up (Go: the driver is usable; else its slices are wiped). */
  usable(driverName: string): boolean;
  /** Every registered plugin, drivers in name order, a driver's plugins in the order they came. */
  list(): RegisteredDraPlugin[];
  /** Calls `listener` with the driver's name after each plugin added or removed and each connection that came up or went down; returns the unsubscribe. */
  onChange(listener: (driverName: string) => void): () => void;
}

/** The registry as the plugin manager fills it. */
export interface DraDriverStore extends DraConnectionReports {
  /** Adds a plugin; throws KLT_ERR_PLUGIN_REGISTRATION, with Go's message, when the driver has a plugin on that endpoint already. */
  add(plugin: RegisteredDraPlugin): void;
  /** Removes the driver's plugin on that endpoint; nothing when there is none. */
  remove(driverName: string, endpoint: string): void;
}

/** Where the plugins' connections are told: the registry, as the plugin clients watch them. */
export interface DraConnectionReports extends DraDriverRegistry {
  /** Whether the plugin's gRPC connection is up; a plugin not registered (any more) is ignored. */
  setConnected(driverName: string, endpoint: string, connected: boolean): void;
}
