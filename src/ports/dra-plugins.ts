/**
 * A registered DRA driver's kubelet plugin as the kubelet calls it (Go: pkg/kubelet/cm/dra/plugin's
 * DRAPlugin): the pod's claims of that driver prepared before its containers start, unprepared
 * once no pod uses them. Implemented in src/adapters/dra.
 */

/** A ResourceClaim allocated to devices of the driver. */
export interface DraClaim {
  namespace: string;
  uid: string;
  name: string;
}

/** A device the driver prepared for a claim, and the CDI devices a container using it gets. */
export interface DraDevice {
  requestNames: string[];
  poolName: string;
  deviceName: string;
  cdiDeviceIds: string[];
}

/** One claim's answer to NodePrepareResources: its devices, or why the driver could not prepare it. */
export type DraPrepareResult = { devices: DraDevice[] } | { error: string };

/** One claim's answer to NodeUnprepareResources: `error` empty when it was unprepared. */
export interface DraUnprepareResult { error: string }

export interface DraPluginClient {
  /** NodePrepareResources with Go's call timeout: the answers by claim uid (a claim the driver left out is absent). */
  nodePrepareResources(claims: readonly DraClaim[]): Promise<Map<string, DraPrepareResult>>;
  /** NodeUnprepareResources with Go's call timeout: the answers by claim uid. */
  nodeUnprepareResources(claims: readonly DraClaim[]): Promise<Map<string, DraUnprepareResult>>;
}

export interface DraPluginClients {
  /** The client of the driver's plugin to call (the registry's choice); throws KLT_ERR_DRA_PLUGIN when none is registered. */
  get(driverName: string): DraPluginClient;
  /** Closes every connection. */
  close(): void;
}
