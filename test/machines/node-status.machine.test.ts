import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import type { SerializedError } from '../../src/domain/errors.js';
import type { NodeObject, NodeStatus } from '../../src/domain/node-status/api-objects.js';
import type { NodeRegistrationSpec } from '../../src/domain/node-status/initial-node.js';
import { computeNodeStatus, type NodeStaticFacts } from '../../src/domain/node-status/node-status.js';
import {
  nodeStatusMachine,
  type ApiAnswer,
  type NodeFacts,
  type NodeStatusEmitted,
  type PatchNodeStatusInput,
  type ReconcileNodeInput,
  type RegisterNodeInput,
} from '../../src/machines/node-status.machine.js';
import { settle } from '../support/settle.js';

const settleAll = () => settle(5);
async function tick(clock: SimulatedClock, ms: number) {
  clock.increment(ms);
  await settleAll();
}

const registration: NodeRegistrationSpec = {
  nodeName: 'n1', hostname: 'n1', operatingSystem: 'linux', architecture: 'amd64',
  nodeLabels: {}, registerWithTaints: [], registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
};
const facts: NodeStaticFacts = {
  hostname: 'n1', nodeIps: ['10.0.0.5'],
  capacity: { cpuMillis: 4000, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30, pods: 110 },
  allocatable: { cpuMillis: 4000, memoryBytes: 8 * 2 ** 30 - 100 * 2 ** 20, ephemeralStorageBytes: 90 * 2 ** 30, pods: 110 },
  nodeInfo: {
    machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian GNU/Linux 12 (bookworm)',
    containerRuntimeVersion: 'containerd://1.7.24', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
  },
  kubeletPort: 10250,
  maxImages: 50,
};
const unavailable: SerializedError = { code: 'KLT_ERR_API_UNAVAILABLE', message: 'connect ECONNREFUSED', retryable: true };
const exists: SerializedError = { code: 'KLT_ERR_API_ALREADY_EXISTS', message: 'nodes "n1" already exists', retryable: false };

interface Script {
  register?: SerializedError[];
  existing?: NodeObject;
  patchFails?: number;
}

function start(script: Script = {}) {
  const clock = new SimulatedClock();
  const calls = { register: [] as number[], reconcile: [] as number[], facts: [] as number[], patch: [] as { atMs: number; input: PatchNodeStatusInput }[] };
  const emitted: NodeStatusEmitted[] = [];
  let patchFails = script.patchFails ?? 0;
  const node = (status?: NodeStatus): NodeObject => ({ metadata: { name: 'n1', uid: 'uid-1' }, ...(status ? { status } : {}) });
  const machine = nodeStatusMachine.provide({
    actors: {
      registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async () => {
        calls.register.push(clock.now());
        const err = script.register?.[calls.register.length - 1];
        return err ? { ok: false, error: err, observedAtMs: clock.now() } : { ok: true, value: node(), observedAtMs: clock.now() };
      }),
      reconcileNode: fromPromise<ApiAnswer<NodeObject>, ReconcileNodeInput>(async () => {
        calls.reconcile.push(clock.now());
        return { ok: true, value: script.existing ?? node(), observedAtMs: clock.now() };
      }),
      readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => {
        calls.facts.push(clock.now());
        return { ok: true, value: { images: [] }, observedAtMs: clock.now() };
      }),
      patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async ({ input }) => {
        calls.patch.push({ atMs: clock.now(), input });
        if (patchFails > 0) {
          patchFails--;
          return { ok: false, error: unavailable, observedAtMs: clock.now() };
        }
        return { ok: true, value: node(input.status), observedAtMs: clock.now() };
      }),
    },
  });
  const actor = createActor(machine, { clock, input: { registration, facts, jitter: 0, startedAtMs: 0 } });
  actor.on('*', (e) => emitted.push(e as NodeStatusEmitted));
  return { actor, clock, calls, emitted };
}

const runtimeReady = { type: 'node.runtime.health', runtimeReady: true, networkReady: true, observedAtMs: 0 } as const;
const plegHealthy = { type: 'node.pleg.health', healthy: true, observedAtMs: 0 } as const;
/** The runtime's first answer and the PLEG's first relist: what Ready waits for. */
function sendHealthy(actor: { send(event: typeof runtimeReady | typeof plegHealthy): void }): void {
  actor.send(runtimeReady);
  actor.send(plegHealthy);
}
const readyOf = (input: PatchNodeStatusInput | undefined) => input?.status.conditions?.find((c) => c.type === 'Ready');

describe('nodeStatusMachine registration', () => {
  it('retries registration after 100, 200, 400 ms … and never more than 7 s apart', async () => {
    const { actor, clock, calls } = start({ register: Array<SerializedError>(9).fill(unavailable) });
    actor.start();
    await settleAll();
    // No runtime answer: the first try waits out the 100 ms hold.
    expect(calls.register).toEqual([]);
    await tick(clock, 100);
    expect(calls.register).toEqual([100]);
    for (const step of [100, 200, 400, 800, 1_600, 3_200, 6_400, 7_000, 7_000]) await tick(clock, step);
    const gaps = calls.register.slice(1).map((t, i) => t - calls.register[i]!);
    expect(gaps).toEqual([100, 200, 400, 800, 1_600, 3_200, 6_400, 7_000, 7_000]);
    expect(actor.getSnapshot().matches('updating')).toBe(true);
    expect(actor.getSnapshot().context.registerFailures).toBe(0);
  });

  it('waits for the first runtime answer and PLEG relist (at most 100 ms) and creates the Node Ready with them, which ends the fast updates', async () => {
    const clock = new SimulatedClock();
    const registered: RegisterNodeInput[] = [];
    const patches: PatchNodeStatusInput[] = [];
    const machine = nodeStatusMachine.provide({
      actors: {
        // As the API server: the Node comes back with the status it was created with.
        registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async ({ input }) => {
          registered.push(input);
          const status = computeNodeStatus({ facts: input.facts, health: input.health, images: [], previousConditions: [], nowMs: clock.now() });
          return { ok: true, value: { metadata: { name: 'n1', uid: 'u1' }, status }, observedAtMs: clock.now() };
        }),
        readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => ({ ok: true, value: { images: [] }, observedAtMs: clock.now() })),
        patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async ({ input }) => {
          patches.push(input);
          return { ok: true, value: { metadata: { name: 'n1' }, status: input.status }, observedAtMs: clock.now() };
        }),
      },
    });
    const actor = createActor(machine, { clock, input: { registration, facts, jitter: 0, startedAtMs: 0 } });
    actor.start();
    await tick(clock, 40);
    expect(registered).toHaveLength(0);
    actor.send({ ...runtimeReady, observedAtMs: 40 });
    await settleAll();
    // Go's PLEG check fails until the first relist: the runtime alone does not make the Node Ready.
    expect(registered).toHaveLength(0);
    actor.send({ ...plegHealthy, observedAtMs: 45 });
    await settleAll();
    expect(registered.map((r) => r.health.runtime)).toEqual([{ runtimeReady: true, networkReady: true }]);
    expect(actor.getSnapshot().context.reportedReady).toBe(true);
    // The first update follows at once (Go's syncNodeStatus: never reported, so due), already Ready;
    // the next is a regular period away, not a fast 100 ms one.
    expect(patches.map((p) => readyOf(p)?.status)).toEqual(['True']);
    await tick(clock, 100);
    expect(patches).toHaveLength(1);
  });

  it('registers after 100 ms without a runtime answer, and its retries do not wait again', async () => {
    const { actor, clock, calls } = start({ register: [unavailable] });
    actor.start();
    await tick(clock, 99);
    expect(calls.register).toEqual([]);
    await tick(clock, 1);
    expect(calls.register).toEqual([100]);
    await tick(clock, 100);
    expect(calls.register).toEqual([100, 200]);
    expect(actor.getSnapshot().matches('updating')).toBe(true);
  });

  it('reconciles the existing Node on AlreadyExists and keeps its conditions for transition times', async () => {
    const since = '2026-01-01T00:00:00Z';
    const existing: NodeObject = {
      metadata: { name: 'n1', uid: 'uid-old' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: since, lastTransitionTime: since }] },
    };
    const { actor, calls } = start({ register: [exists], existing });
    actor.start();
    sendHealthy(actor);
    await settleAll();
    expect(calls.reconcile).toHaveLength(1);
    expect(actor.getSnapshot().context.nodeUid).toBe('uid-old');
    expect(readyOf(calls.patch[0]?.input)?.lastTransitionTime).toBe(since);
  });

  it('tells the nodeLease actor in its system and its subscribers the uid once registered', async () => {
    const received: unknown[] = [];
    const clock = new SimulatedClock();
    const statusMachine = nodeStatusMachine.provide({
      actors: {
        registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async () => ({ ok: true as const, value: { metadata: { name: 'n1', uid: 'u9' } }, observedAtMs: 0 })),
        readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => ({ ok: true as const, value: { images: [] }, observedAtMs: 0 })),
        patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async () => ({ ok: true as const, value: { metadata: {} }, observedAtMs: 0 })),
      },
    });
    const fakeLease = createMachine({ on: { 'node.registered': { actions: ({ event }) => received.push(event) } } });
    // Both under one parent, as the lead wires them: the lease is found by its system id.
    const parent = createMachine({
      invoke: [
        { id: 'nodeLease', systemId: 'nodeLease', src: fakeLease },
        { id: 'nodeStatus', src: statusMachine, input: { registration, facts, jitter: 0, startedAtMs: 0 } },
      ],
    });
    const root = createActor(parent, { clock });
    root.start();
    const statusRef = root.getSnapshot().children.nodeStatus!;
    const local: unknown[] = [];
    statusRef.on('node.registered', (e: unknown) => local.push(e));
    sendHealthy(statusRef);
    await settleAll();
    expect(received).toEqual([{ type: 'node.registered', nodeName: 'n1', uid: 'u9' }]);
    expect(local).toEqual(received);
    root.stop();
  });
});

describe('nodeStatusMachine with registerNode=false', () => {
  it('never creates the Node: it reads it with back-off until it exists, then reports status', async () => {
    const clock = new SimulatedClock();
    const gets: number[] = [];
    const machine = nodeStatusMachine.provide({
      actors: {
        getNode: fromPromise<ApiAnswer<NodeObject>, { nodeName: string }>(async () => {
          gets.push(clock.now());
          return gets.length < 3
            ? { ok: false as const, error: { code: 'KLT_ERR_API_NOT_FOUND' as const, message: 'not found', retryable: false }, observedAtMs: clock.now() }
            : { ok: true as const, value: { metadata: { name: 'n1', uid: 'admin-made' } }, observedAtMs: clock.now() };
        }),
        readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => ({ ok: true as const, value: { images: [] }, observedAtMs: clock.now() })),
        patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async () => ({ ok: true as const, value: { metadata: {} }, observedAtMs: clock.now() })),
      },
    });
    const actor = createActor(machine, { clock, input: { registration, facts, jitter: 0, startedAtMs: 0, registerNode: false } });
    actor.start();
    await settleAll();
    await tick(clock, 100);
    await tick(clock, 200);
    expect(gets).toEqual([0, 100, 300]);
    expect(actor.getSnapshot().matches('updating')).toBe(true);
    expect(actor.getSnapshot().context.nodeUid).toBe('admin-made');
  });
});

describe('nodeStatusMachine status updates', () => {
  it('polls every 100 ms until Ready is reported, then every 10 s', async () => {
    const { actor, clock, calls } = start();
    actor.start();
    await settleAll();
    await tick(clock, 100);
    await tick(clock, 100);
    await tick(clock, 100);
    expect(calls.register).toEqual([100]);
    expect(calls.facts).toEqual([100, 200, 300]);
    sendHealthy(actor);
    await tick(clock, 100);
    expect(readyOf(calls.patch.at(-1)?.input)?.status).toBe('True');
    const factsBefore = calls.facts.length;
    await tick(clock, 9_999);
    expect(calls.facts.length).toBe(factsBefore);
    await tick(clock, 1);
    expect(calls.facts.length).toBe(factsBefore + 1);
  });

  it('holds a not-Ready status back for one period after start, then reports it', async () => {
    const { actor, clock, calls } = start();
    actor.start();
    await settleAll();
    for (let t = 0; t < 9_900; t += 100) await tick(clock, 100);
    expect(calls.patch).toHaveLength(0);
    await tick(clock, 100);
    expect(calls.patch).toHaveLength(1);
    expect(readyOf(calls.patch[0]?.input)).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: '[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]' });
  });

  it('sends an unchanged status only after the report frequency (5 m)', async () => {
    const { actor, clock, calls } = start();
    actor.start();
    sendHealthy(actor);
    await settleAll();
    expect(calls.patch).toHaveLength(1);
    for (let t = 10_000; t < 300_000; t += 10_000) await tick(clock, 10_000);
    expect(calls.patch).toHaveLength(1);
    await tick(clock, 10_000);
    expect(calls.patch).toHaveLength(2);
    expect(calls.patch[1]!.atMs).toBe(300_000);
    expect(readyOf(calls.patch[1]!.input)?.lastHeartbeatTime).toBe('1970-01-01T00:05:00Z');
    expect(readyOf(calls.patch[1]!.input)?.lastTransitionTime).toBe('1970-01-01T00:00:00Z');
  });

  it('sends at the next period when the health changed, and emits the readiness change', async () => {
    const { actor, clock, calls, emitted } = start();
    actor.start();
    sendHealthy(actor);
    await settleAll();
    actor.send({ type: 'node.pleg.health', healthy: false, message: 'pleg was last seen active 3m1s ago; threshold is 3m0s', observedAtMs: 5_000 });
    await tick(clock, 9_999);
    expect(calls.patch).toHaveLength(1);
    await tick(clock, 1);
    expect(calls.patch).toHaveLength(2);
    expect(readyOf(calls.patch[1]!.input)).toMatchObject({ status: 'False', message: 'PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s', lastTransitionTime: '1970-01-01T00:00:10Z' });
    expect(emitted.filter((e) => e.type === 'node.readiness.changed').map((e) => (e as { ready: boolean }).ready)).toEqual([true, false]);
    // The fake registers a Node without conditions, so the first report carries the pressure events.
    expect(emitted.filter((e) => e.type === 'node.status.event').map((e) => (e as { reason: string }).reason)).toEqual([
      'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeNotReady',
    ]);
    expect(emitted.find((e) => e.type === 'node.status.event')).toMatchObject({ message: 'Node n1 status is now: NodeHasSufficientMemory' });
  });

  it('reports the eviction manager pressure at the next period, with the NodeHasInsufficientMemory event (#18)', async () => {
    const { actor, clock, calls, emitted } = start();
    actor.start();
    sendHealthy(actor);
    await settleAll();
    actor.send({ type: 'node.pressure.changed', conditions: ['MemoryPressure'] });
    await tick(clock, 10_000);
    expect(calls.patch).toHaveLength(2);
    const memory = (calls.patch[1]!.input as { status: { conditions: { type: string }[] } }).status.conditions.find((c) => c.type === 'MemoryPressure');
    expect(memory).toMatchObject({ status: 'True', reason: 'KubeletHasInsufficientMemory', lastTransitionTime: '1970-01-01T00:00:10Z' });
    expect(emitted.filter((e) => e.type === 'node.status.event').map((e) => (e as { reason: string }).reason)).toContain('NodeHasInsufficientMemory');
  });

  it('reports NotReady with "node is shutting down" at once when the node shutdown manager says so, not at the next period', async () => {
    const { actor, clock, calls } = start();
    actor.start();
    sendHealthy(actor);
    await settleAll();
    await tick(clock, 3_000);
    expect(calls.patch).toHaveLength(1);
    actor.send({ type: 'node.shutdown.changed', shuttingDown: true });
    await settleAll();
    expect(calls.patch).toHaveLength(2);
    expect(calls.patch[1]!.atMs).toBe(3_000);
    expect(readyOf(calls.patch[1]!.input)).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' });
  });

  it('retries a failed PATCH at once, five tries in all, and resumes at the next period', async () => {
    const { actor, clock, calls } = start({ patchFails: 7 });
    actor.start();
    sendHealthy(actor);
    await settleAll();
    expect(calls.patch.map((p) => p.input.attempt)).toEqual([0, 1, 2, 3, 4]);
    expect(actor.getSnapshot().context.lastError?.code).toBe('KLT_ERR_API_UNAVAILABLE');
    // Still not reported Ready: fast updates go on, and the status gets through once the server answers.
    await tick(clock, 100);
    await tick(clock, 100);
    expect(calls.patch.length).toBeGreaterThanOrEqual(8);
    expect(actor.getSnapshot().context.reportedReady).toBe(true);
  });
});
