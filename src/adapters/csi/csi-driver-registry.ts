/**
 * The CSI drivers registered on this node, in memory (Go: pkg/volume/csi's csiDrivers store): the
 * plugin manager's effects write it, the CSI volume plugin reads a driver's endpoint from it.
 */
import type { CsiDriverStore, RegisteredCsiDriver } from '../../ports/csi-drivers.js';

export function createCsiDriverRegistry(): CsiDriverStore {
  const drivers = new Map<string, RegisteredCsiDriver>();
  return {
    get: (name) => drivers.get(name),
    list: () => [...drivers.values()],
    set: (driver) => void drivers.set(driver.name, { ...driver, versions: [...driver.versions] }),
    delete: (name) => void drivers.delete(name),
  };
}
