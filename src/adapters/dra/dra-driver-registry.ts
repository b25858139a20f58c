/**
 * The DRA drivers' registered plugins, in memory (Go: the DRAPluginManager's store): a driver may
 * have several plugins (a rolling update starts the new one before the old one goes), each on its
 * own endpoint; one plugin cannot take over another's endpoint.
 */
import { draEndpointTakenMessage } from '../../domain/dra/plugin-services.js';
import { KubeletError } from '../../domain/errors.js';
import { byCodeUnits } from '../../domain/text/code-unit-order.js';
import type { DraDriverStore, RegisteredDraPlugin } from '../../ports/dra-drivers.js';

export function createDraDriverRegistry(): DraDriverStore {
  const drivers = new Map<string, RegisteredDraPlugin[]>();
  const listeners = new Set<(driverName: string) => void>();
  const changed = (driverName: string) => {
    for (const listener of [...listeners]) listener(driverName);
  };
  return {
    get: (driverName) => drivers.get(driverName)?.at(-1),
    list: () => [...drivers.keys()].sort(byCodeUnits).flatMap((name) => drivers.get(name)!),
    add(plugin) {
      const plugins = drivers.get(plugin.driverName) ?? [];
      if (plugins.some((p) => p.endpoint === plugin.endpoint)) {
        throw new KubeletError('KLT_ERR_PLUGIN_REGISTRATION', draEndpointTakenMessage(plugin.driverName, plugin.endpoint));
      }
      drivers.set(plugin.driverName, [...plugins, { ...plugin }]);
      changed(plugin.driverName);
    },
    remove(driverName, endpoint) {
      const plugins = drivers.get(driverName) ?? [];
      const left = plugins.filter((p) => p.endpoint !== endpoint);
      if (left.length === plugins.length) return;
      if (left.length > 0) drivers.set(driverName, left);
      else drivers.delete(driverName);
      changed(driverName);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
