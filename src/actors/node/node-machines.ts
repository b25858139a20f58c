/**
 * Entry points for the lead's wiring: the node status and lease machines with their effects
 * provided over the API clients. Spawn them as `nodeStatus` and `nodeLease` (system ids) under one
 * parent so the status machine can tell the lease machine the Node's uid.
 */
import type { Logger } from 'pino';
import { nodeLeaseMachine } from '../../machines/node-lease.machine.js';
import { nodeStatusMachine } from '../../machines/node-status.machine.js';
import type { ApiClients, FollowNode } from '../../ports/apiserver.js';
import type { Clock } from '../../ports/clock.js';
import type { ListedImage } from '../../domain/node-status/node-status.js';
import { nodeLeaseActors } from './node-lease-actors.js';
import { nodeStatusActors } from './node-status-actors.js';

export interface NodeMachinesDeps {
  clients: Pick<ApiClients, 'main' | 'heartbeat'>;
  listImages: () => Promise<ListedImage[]>;
  /** The Node's informer; absent: the Node is not followed. */
  followNode?: FollowNode;
  /** CRI UpdateRuntimeConfig; absent: a pod CIDR is not given to any runtime. */
  updateRuntimeConfig?: (podCIDR: string) => Promise<void>;
  clock: Clock;
  logger: Logger;
}

export function providedNodeStatusMachine(deps: NodeMachinesDeps) {
  return nodeStatusMachine.provide({
    actors: nodeStatusActors({
      api: deps.clients.main,
      heartbeat: deps.clients.heartbeat,
      listImages: deps.listImages,
      followNode: deps.followNode ?? (() => ({ stop: () => {} })),
      updateRuntimeConfig: deps.updateRuntimeConfig ?? (async () => {}),
      clock: deps.clock,
      logger: deps.logger,
    }),
  });
}

export function providedNodeLeaseMachine(deps: Omit<NodeMachinesDeps, 'listImages'>) {
  return nodeLeaseMachine.provide({ actors: nodeLeaseActors({ heartbeat: deps.clients.heartbeat, clock: deps.clock, logger: deps.logger }) });
}
