/**
 * One registration socket driven by the plugin registration machine with the real effects (GetInfo
 * and NotifyRegistrationStatus over gRPC, the DRA driver registry), short of the watcher: the test
 * sends `plugin.socket.removed` itself. Under a parent that records the machine's end.
 */
import pino from 'pino';
import { createActor, setup, type AnyActorRef } from 'xstate';
import { createDraPluginActors } from '../../src/actors/plugin-manager/dra-plugin-actors.js';
import { createPluginManagerActors } from '../../src/actors/plugin-manager/plugin-manager-actors.js';
import { createCsiDriverRegistry } from '../../src/adapters/csi/csi-driver-registry.js';
import { createPluginClients } from '../../src/adapters/csi/plugin-clients.js';
import { createDraDriverRegistry } from '../../src/adapters/dra/dra-driver-registry.js';
import { pluginRegistrationMachine } from '../../src/machines/plugin-registration.machine.js';
import type { DraDriverStore } from '../../src/ports/dra-drivers.js';

export interface DraRegistration {
  readonly draDrivers: DraDriverStore;
  /** The registration actor. */
  readonly child: AnyActorRef;
  /** Its state's name. */
  state(): string;
  /** The sockets whose `plugin.registration.ended` reached the parent. */
  readonly ended: string[];
  stop(): void;
}

/** Starts registering the plugin at `socketPath` (no retry within a test's time). */
export function registerSocket(socketPath: string): DraRegistration {
  const draDrivers = createDraDriverRegistry();
  const logger = pino({ level: 'silent' });
  const noNode = { initializeCsiNode: async () => {}, installDriver: async () => {}, uninstallDriver: async () => {} };
  const effects = {
    ...createPluginManagerActors({ watcher: { watch: async () => ({ stop: () => {} }) }, clients: createPluginClients(), drivers: createCsiDriverRegistry(), nodeInfo: noNode, logger }),
    ...createDraPluginActors({ draDrivers, logger }),
  };
  const registration = pluginRegistrationMachine.provide({ actors: effects });
  const ended: string[] = [];
  const root = createActor(setup({ actors: { registration } }).createMachine({
    invoke: { id: 'registration', src: 'registration', input: { socketPath, csiNode: null, retryPeriodMs: 60_000 } },
    on: { 'plugin.registration.ended': { actions: ({ event }) => void ended.push((event as unknown as { socketPath: string }).socketPath) } },
  })).start();
  const child = root.getSnapshot().children.registration as AnyActorRef;
  return { draDrivers, child, state: () => child.getSnapshot().value as string, ended, stop: () => root.stop() };
}
