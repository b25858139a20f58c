/**
 * The CSI drivers registered on this node (Go: pkg/volume/csi's csiDrivers store, filled by the
 * plugin manager's CSI registration handler). The plugin watcher writes it; the CSI volume plugin
 * reads it to find a driver's endpoint.
 */
export interface RegisteredCsiDriver {
  name: string;
  /** The driver's CSI socket (an absolute path). */
  endpoint: string;
  /** The CSI versions the driver gave at registration. */
  versions: string[];
  /** NodeGetInfo's node_id. */
  nodeId: string;
  /** NodeGetInfo's max_volumes_per_node (0: no limit). */
  maxVolumesPerNode: number;
}

export interface CsiDriverRegistry {
  get(name: string): RegisteredCsiDriver | undefined;
  list(): RegisteredCsiDriver[];
}

/**
 * The registry as the plugin manager fills it: a driver set at registration, deleted at
 * deregistration. Each set stores a new record, so what a reader learnt of one registration (the
 * driver's capabilities) can be kept against its record and is not taken for the next one's.
 */
export interface CsiDriverStore extends CsiDriverRegistry {
  set(driver: RegisteredCsiDriver): void;
  delete(name: string): void;
}
