/**
 * The container manager's cgroups (Go: ContainerManager.Start from initializeRuntimeDependentModules,
 * the QoS container manager's periodic update, and housekeeping's cleanupOrphanedPodCgroups).
 *
 * Contract:
 * - `waitingForRuntime` until the runtime machine's first answer with RuntimeReady (`runtime.up`,
 *   whatever the network says): Go starts the container manager then, once, from updateRuntimeUp. Then `starting` runs `startContainerManager` (the node-allocatable and QoS
 *   cgroups, the enforced reservations); it failing leaves the machine in `failed`, as Go exits then.
 * - `running`: every `qosUpdatePeriodMs` (Go: one minute) `updateQosCgroups` recomputes the burstable
 *   shares, when QoS cgroups are on. `cgroups.pods.running` (from the syncLoop, once every source was
 *   seen and whenever a pod worker is done) names the pods that may still run; `cleanupPodCgroups`
 *   then destroys every other pod cgroup. Requests arriving meanwhile are kept (the latest wins) and
 *   run next; so are those that come before the start finished.
 * - The effects never leave a pod's cgroup half made: pod cgroups themselves are created by the pod's
 *   sync (before its sandbox), not here.
 * Pure: no I/O, no clock reads; the period runs on the injected clock.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { QosCgroupConfigs } from '../domain/cgroups/qos-cgroups.js';
import type { ResourceConfig } from '../domain/cgroups/resource-config.js';
import type { SerializedError } from '../domain/errors.js';
import { effectError } from './done-output.js';

export interface ContainerManagerInput {
  /** cgroupsPerQOS in effect: without it nothing is created and nothing is updated periodically. */
  qosCgroups: boolean;
  qosUpdatePeriodMs?: number;
}

/** What start did: the journal's and the visualizer's record of the hierarchy. */
export interface ContainerManagerStarted {
  qosCgroups: boolean;
  cgroupVersion: string;
  nodeAllocatable?: { cgroup: string } & ResourceConfig;
  qos?: QosCgroupConfigs;
  /** The enforcement keys applied (pods, system-reserved, kube-reserved). */
  enforced: string[];
}

export interface PodCgroupSweep { removed: string[] }

export interface CleanupPodCgroupsInput { keep: string[] }

export interface ContainerManagerContext {
  input: ContainerManagerInput;
  started: ContainerManagerStarted | null;
  /** The latest `cgroups.pods.running` not yet swept. */
  pendingKeep: string[] | null;
  /** The request the sweep under way works on. */
  sweeping: string[] | null;
  lastSweep: PodCgroupSweep | null;
  lastError: SerializedError | null;
}

export type ContainerManagerEvent =
  | { type: 'runtime.up' }
  | { type: 'cgroups.pods.running'; podUids: string[] };

/** Go's periodicQOSCgroupUpdateInterval. */
export const QOS_UPDATE_PERIOD_MS = 60_000;

export const CONTAINER_MANAGER_EFFECTS = ['startContainerManager', 'updateQosCgroups', 'cleanupPodCgroups'] as const;

const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`actor ${name} was not provided`);
};

export const containerManagerMachine = setup({
  types: {
    context: {} as ContainerManagerContext,
    events: {} as ContainerManagerEvent,
    input: {} as ContainerManagerInput,
  },
  actors: {
    startContainerManager: fromPromise<ContainerManagerStarted>(notProvided('startContainerManager')),
    updateQosCgroups: fromPromise<QosCgroupConfigs | null>(notProvided('updateQosCgroups')),
    cleanupPodCgroups: fromPromise<PodCgroupSweep, CleanupPodCgroupsInput>(notProvided('cleanupPodCgroups')),
  },
  actions: {
    recordError: assign({ lastError: ({ event }) => effectError(event) }),
  },
  guards: {
    hasPendingSweep: ({ context }) => context.pendingKeep !== null,
    isQosEnabled: ({ context }) => context.input.qosCgroups,
  },
  delays: {
    qosUpdatePeriod: ({ context }) => context.input.qosUpdatePeriodMs ?? QOS_UPDATE_PERIOD_MS,
  },
}).createMachine({
  id: 'containerManager',
  context: ({ input }) => ({ input, started: null, pendingKeep: null, sweeping: null, lastSweep: null, lastError: null }),
  on: {
    'cgroups.pods.running': { actions: assign({ pendingKeep: ({ event }) => [...event.podUids].sort() }) },
  },
  initial: 'waitingForRuntime',
  states: {
    waitingForRuntime: {
      meta: { description: 'initializeRuntimeDependentModules waits for the first runtime-up' },
      on: { 'runtime.up': { target: 'starting' } },
    },
    starting: {
      meta: { description: 'ContainerManager.Start: node-allocatable and QoS cgroups, enforced reservations' },
      invoke: {
        id: 'startContainerManager',
        src: 'startContainerManager',
        onDone: { target: 'running', actions: assign({ started: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: 'recordError' },
      },
    },
    running: {
      initial: 'idle',
      states: {
        idle: {
          always: {
            guard: 'hasPendingSweep',
            target: 'cleaningUp',
            actions: assign({ sweeping: ({ context }) => context.pendingKeep, pendingKeep: null }),
          },
          after: { qosUpdatePeriod: { guard: 'isQosEnabled', target: 'updatingQos' } },
        },
        updatingQos: {
          meta: { description: 'the QoS cgroups updated for the active pods (burstable cpu shares)' },
          invoke: {
            id: 'updateQosCgroups',
            src: 'updateQosCgroups',
            onDone: { target: 'idle' },
            onError: { target: 'idle', actions: 'recordError' },
          },
        },
        cleaningUp: {
          meta: { description: "housekeeping: the cgroups of pods that no longer run are destroyed" },
          invoke: {
            id: 'cleanupPodCgroups',
            src: 'cleanupPodCgroups',
            input: ({ context }) => ({ keep: context.sweeping ?? [] }),
            onDone: { target: 'idle', actions: assign({ lastSweep: ({ event }) => event.output, sweeping: null }) },
            onError: { target: 'idle', actions: 'recordError' },
          },
        },
      },
    },
    failed: {
      meta: { description: 'ContainerManager.Start failed: the kubelet stops (Go exits)' },
    },
  },
});
