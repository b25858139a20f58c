/**
 * The DRA drivers' registered plugins, in memory (Go: the DRAPluginManager's store): a driver may
 * have several plugins (a rolling update starts the new one before the old one goes), each on its
 * own endpoint; one plugin cannot take over another's endpoint. Whether each plugin's gRPC
 * connection is up is kept beside it, as the plugin clients see it: a plugin starts disconnected.
 */
import { draEndpointTakenMessage } from '../../domain/dra/plugin-services.js';
import { KubeletError } from '../../domain/errors.js';
import { byCodeUnits } from '../../domain/text/code-unit-order.js';
import type { DraDriverStore, RegisteredDraPlugin } from '../../ports/dra-drivers.js';

interface Entry {
  plugin: RegisteredDraPlugin;
  connected: boolean;
}

export function createDraDriverRegistry(): DraDriverStore {
  const drivers = new Map<string, Entry[]>();
  const listeners = new Set<(driverName: string) => void>();
  const changed = (driverName: string) => {
    for (const listener of [...listeners]) listener(driverName);
  };
  return {
    get(driverName) {
      const entries = drivers.get(driverName) ?? [];
      return (entries.findLast((e) => e.connected) ?? entries.at(-1))?.plugin;
    },
    usable: (driverName) => (drivers.get(driverName) ?? []).some((e) => e.connected),
    list: () => [...drivers.keys()].sort(byCodeUnits).flatMap((name) => drivers.get(name)!.map((e) => e.plugin)),
    add(plugin) {
      const entries = drivers.get(plugin.driverName) ?? [];
      if (entries.some((e) => e.plugin.endpoint === plugin.endpoint)) {
        throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', draEndpointTakenMessage(plugin.driverName, plugin.endpoint));
      }
      drivers.set(plugin.driverName, [...entries, { plugin: { ...plugin }, connected: false }]);
      changed(plugin.driverName);
    },
    remove(driverName, endpoint) {
      const entries = drivers.get(driverName) ?? [];
      const left = entries.filter((e) => e.plugin.endpoint !== endpoint);
      if (left.length === entries.length) return;
      if (left.length > 0) drivers.set(driverName, left);
      else drivers.delete(driverName);
      changed(driverName);
    },
    setConnected(driverName, endpoint, connected) {
      const entry = drivers.get(driverName)?.find((e) => e.plugin.endpoint === endpoint);
      if (!entry || entry.connected === connected) return;
      entry.connected = connected;
      changed(driverName);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
