/**
 * The plugin manager's effects for a DRA driver's kubelet plugin (plugin-registration.machine.ts),
 * over the DRA driver store (Go: DRAPluginManager.RegisterPlugin and DeRegisterPlugin):
 * - `addDraPlugin`: the plugin into the store; an endpoint its driver has already is refused.
 * - `removeDraPlugin`: the plugin out of the store.
 * Each logs as Go's DRA plugin manager does at the same point.
 */
import { fromPromise } from 'xstate';
import type { Logger } from '../../log.js';
import type { AddDraPluginInput, RemoveDraPluginInput } from '../../machines/plugin-registration.machine.js';
import type { DraDriverStore } from '../../ports/dra-drivers.js';

export interface DraPluginActorDeps {
  draDrivers: DraDriverStore;
  logger: Logger;
}

export function createDraPluginActors({ draDrivers, logger }: DraPluginActorDeps) {
  const pluginsOf = (driverName: string) => draDrivers.list().filter((p) => p.driverName === driverName).length;
  return {
    addDraPlugin: fromPromise<void, AddDraPluginInput>(async ({ input }) => {
      const { name: driverName, endpoint, service } = input.plugin;
      draDrivers.add({ driverName, endpoint, service });
      logger.info({ driverName, endpoint, chosenService: service, numPlugins: pluginsOf(driverName) }, 'Registered DRA plugin');
    }),
    removeDraPlugin: fromPromise<void, RemoveDraPluginInput>(async ({ input }) => {
      draDrivers.remove(input.driverName, input.endpoint);
      logger.info({ driverName: input.driverName, endpoint: input.endpoint, numPlugins: pluginsOf(input.driverName) }, 'Unregistered DRA plugin');
    }),
  };
}
