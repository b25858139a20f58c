/**
 * The status manager (Go's pkg/kubelet/status/status_manager.go) with the kubelet's mirror-pod
 * upkeep (mirror_client.go, the mirror steps of SyncPod and HandlePodCleanups).
 *
 * Contract:
 * - `pod.status.updated { podUid, status }` (from the syncLoop, as the pod workers send it): the
 *   newest status of a pod, versioned. It is patched on `pods/{name}/status` (the UID in the patch
 *   is the precondition); one patch per pod at a time, and only the newest status is sent when it
 *   ends (coalesced). A status equal to the last one sent (ignoring lastProbeTime and order) is not
 *   sent. Conditions whose status did not change keep their lastTransitionTime.
 * - `status.pods.known { pods }`: every pod the kubelet has now, from every source, as the source
 *   gave it (an API pod with its deletionTimestamp and status). Statuses of pods gone are dropped.
 *   Or, instead, the pod config's own `pod.config.updated { op, pods }` forwarded as they come
 *   (REMOVE forgets pods; ADD, UPDATE, DELETE and RECONCILE give their current form).
 * - `api.mirrorPods.observed { pods }` (from the apiserver pod source): the mirror pods the API
 *   server has for this node. A static pod's status goes to its mirror; without one it waits.
 * - `node.uid.known { nodeUid }`: mirror pods are owned by the Node, so they wait for its UID
 *   (unless the input has it).
 * - Every syncPeriod (10 s, Go's syncPeriod) a full resync: statuses not sent, or differing from
 *   what the API server shows, are sent again; mirror pods are checked again.
 * - A pod being deleted (deletionTimestamp) whose last sent status is terminal with no container
 *   running is deleted with grace 0 and its UID as precondition (Go's canBeDeleted).
 * - Mirror pods: created for each static pod (config.mirror = its hash, owned by the Node),
 *   deleted (grace 0) when stale (other hash, or being deleted) and created again, deleted when
 *   their static pod is gone.
 * Effects (spawned children answering as `effect.answered` with a StatusEffectResult, see
 * answering-effect.ts; they never reject): `patchPodStatus`, `deletePod`, `createMirrorPod`,
 * `deleteMirrorPod`. Each is stopped once it has answered: a spawned child stays among the
 * machine's children until then, and these once stayed for good, two patches and a delete for
 * every pod the node ran. Decisions are the pure functions of domain/status-manager/status-sync.ts.
 * Pure: no I/O, no clock reads; time only through the `syncPeriod` delay.
 */
import { actorId } from '../domain/actor-ids.js';
import { assertEvent, setup, type ExtractEvent } from 'xstate';
import { answeredOutput, effectNotProvided, EFFECT_ANSWERED, type EffectAnswered } from './answering-effect.js';
import type { Pod, PodStatus } from '../domain/pod/types.js';
import type { PodOperation } from '../domain/pod-config/types.js';
import {
  applyEffectResult,
  applyPodConfigUpdate,
  initialStatusSyncState,
  resync,
  setKnownPods,
  setNodeUid,
  setObservedMirrors,
  setPodStatus,
  type StatusEffect,
  type StatusEffectResult,
  type StatusSyncState,
  type Step,
} from '../domain/status-manager/status-sync.js';

/** Go's status manager syncPeriod. */
export const STATUS_SYNC_PERIOD_MS = 10_000;

export interface StatusManagerInput {
  nodeName: string;
  /** Known when the node is registered before this machine starts; else `node.uid.known`. */
  nodeUid?: string;
  syncPeriodMs?: number;
}

export type StatusManagerEvent =
  | { type: 'pod.status.updated'; podUid: string; status: PodStatus }
  | { type: 'status.pods.known'; pods: Pod[] }
  | { type: 'pod.config.updated'; op: PodOperation; source: string; pods: Pod[] }
  | { type: 'api.mirrorPods.observed'; pods: Pod[]; observedAtMs: number }
  | { type: 'node.uid.known'; nodeUid: string }
  | EffectAnswered<StatusEffectResult>;

export interface StatusManagerContext {
  syncPeriodMs: number;
  sync: StatusSyncState;
  /** How many effects were started; part of each child's id so ids never repeat. */
  effectCount: number;
}

/** The effectful actor srcs: replay makes exactly these inert. */
export const STATUS_MANAGER_EFFECTS = ['patchPodStatus', 'deletePod', 'createMirrorPod', 'deleteMirrorPod'] as const;

type EffectOf<K extends StatusEffect['kind']> = Extract<StatusEffect, { kind: K }>;

const notProvided = <K extends StatusEffect['kind']>(name: K) => effectNotProvided<StatusEffectResult, EffectOf<K>>(name);

// The machine's types and effect actors first, so the actions below are written with its typed
// `spawnChild` and `assign` (each effect kind spawns its own src with that src's input).
const statusManagerSetup = setup({
  types: {
    context: {} as StatusManagerContext,
    events: {} as StatusManagerEvent,
    input: {} as StatusManagerInput,
  },
  actors: {
    patchPodStatus: notProvided('patchPodStatus'),
    deletePod: notProvided('deletePod'),
    createMirrorPod: notProvided('createMirrorPod'),
    deleteMirrorPod: notProvided('deleteMirrorPod'),
  },
});

/** The spawn of one effect: its kind is its src, and the switch narrows its input to that src's. */
function spawnEffect(effect: StatusEffect, id: string) {
  switch (effect.kind) {
    case 'patchPodStatus': return statusManagerSetup.spawnChild('patchPodStatus', { id, input: effect });
    case 'deletePod': return statusManagerSetup.spawnChild('deletePod', { id, input: effect });
    case 'createMirrorPod': return statusManagerSetup.spawnChild('createMirrorPod', { id, input: effect });
    case 'deleteMirrorPod': return statusManagerSetup.spawnChild('deleteMirrorPod', { id, input: effect });
  }
}

/**
 * Applies a step: its effects spawned as children (ids numbered so they never repeat), its state
 * into context. The effect whose answer the event is, if it is one, is stopped first.
 */
const applyStep = (stepOf: (context: StatusManagerContext, event: StatusManagerEvent) => Step | undefined) =>
  statusManagerSetup.enqueueActions(({ context, event, enqueue }) => {
    if (event.type === EFFECT_ANSWERED) enqueue.stopChild(event.id);
    const step = stepOf(context, event);
    if (!step) return;
    let count = context.effectCount;
    for (const effect of step.effects) {
      const key = effect.kind === 'patchPodStatus' || effect.kind === 'deletePod' ? effect.podUid : effect.fullName;
      enqueue(spawnEffect(effect, actorId(effect.kind, key, String(count++))));
    }
    enqueue.assign({ sync: step.state, effectCount: count });
  });

/** A step taken on one event type only: the action asserts that type and hands over the narrowed event. */
const applyStepOn = <T extends StatusManagerEvent['type']>(type: T, stepOf: (sync: StatusSyncState, event: ExtractEvent<StatusManagerEvent, T>) => Step | undefined) =>
  applyStep(({ sync }, event) => {
    assertEvent(event, type);
    return stepOf(sync, event);
  });

export const statusManagerMachine = statusManagerSetup.extend({
  actions: {
    recordStatus: applyStepOn('pod.status.updated', (sync, event) => setPodStatus(sync, event.podUid, event.status)),
    recordKnownPods: applyStepOn('status.pods.known', (sync, event) => setKnownPods(sync, event.pods)),
    recordPodConfigUpdate: applyStepOn('pod.config.updated', (sync, event) => applyPodConfigUpdate(sync, event.op, event.pods)),
    recordMirrors: applyStepOn('api.mirrorPods.observed', (sync, event) => setObservedMirrors(sync, event.pods)),
    recordNodeUid: applyStepOn('node.uid.known', (sync, event) => setNodeUid(sync, event.nodeUid)),
    recordEffectResult: applyStepOn(EFFECT_ANSWERED, (sync, event) => {
      const output = answeredOutput(event);
      return output ? applyEffectResult(sync, output) : undefined;
    }),
    resyncAll: applyStep(({ sync }) => resync(sync)),
  },
  delays: {
    syncPeriod: ({ context }) => context.syncPeriodMs,
  },
}).createMachine({
  id: 'statusManager',
  context: ({ input }) => ({
    syncPeriodMs: input.syncPeriodMs ?? STATUS_SYNC_PERIOD_MS,
    sync: initialStatusSyncState(input.nodeName, input.nodeUid ?? null),
    effectCount: 0,
  }),
  initial: 'syncing',
  states: {
    syncing: {
      meta: { description: 'sends pod statuses as they change and keeps mirror pods; a full resync every syncPeriod' },
      after: { syncPeriod: { target: 'syncing', reenter: true, actions: 'resyncAll' } },
      on: {
        'pod.status.updated': { actions: 'recordStatus' },
        'status.pods.known': { actions: 'recordKnownPods' },
        'pod.config.updated': { actions: 'recordPodConfigUpdate' },
        'api.mirrorPods.observed': { actions: 'recordMirrors' },
        'node.uid.known': { actions: 'recordNodeUid' },
        'effect.answered': { actions: 'recordEffectResult' },
      },
    },
  },
});
