import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, setup, SimulatedClock, type AnyActorRef, type AnyEventObject } from 'xstate';
import type { SerializedError } from '../../src/domain/errors.js';
import type { NodeObject } from '../../src/domain/node-status/api-objects.js';
import type { NodeRegistrationSpec } from '../../src/domain/node-status/initial-node.js';
import type { LiveNode } from '../../src/domain/node-status/live-node.js';
import type { NodeStaticFacts } from '../../src/domain/node-status/node-status.js';
import {
  nodeStatusMachine, type ApiAnswer, type NodeFacts, type NodeRefreshRequestedEvent, type PatchNodeStatusInput, type RegisterNodeInput,
  type UpdatePodCIDRInput, type WatchNodeInput,
} from '../../src/machines/node-status.machine.js';
import { settle } from '../support/settle.js';

const registration: NodeRegistrationSpec = {
  nodeName: 'n1', hostname: 'n1', operatingSystem: 'linux', architecture: 'amd64',
  nodeLabels: {}, registerWithTaints: [], registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
};
const facts: NodeStaticFacts = {
  hostname: 'n1', nodeIps: ['10.0.0.5'],
  capacity: { cpuMillis: 4000, memoryBytes: 2 ** 33, ephemeralStorageBytes: 2 ** 36, pods: 110 },
  allocatable: { cpuMillis: 4000, memoryBytes: 2 ** 33, ephemeralStorageBytes: 2 ** 36, pods: 110 },
  nodeInfo: {
    machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1.0', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7.24',
    kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
  },
  kubeletPort: 10250,
  maxImages: 50,
};
const unavailable: SerializedError = { code: 'KLT_ERR_API_UNAVAILABLE', message: 'connect ECONNREFUSED', retryable: true };
const live = (rv: string, over: Partial<LiveNode> = {}): LiveNode => ({ resourceVersion: rv, labels: { 'kubernetes.io/hostname': 'n1' }, taints: [], podCIDR: '', ...over });

/**
 * A node status machine whose `watchNode` is a fake the test drives (`observe`, and the refresh
 * requests it records), beside a fake syncLoop (system id `syncLoop`) recording what it is told.
 */
function start(opts: { podCIDRFails?: number; runtimePodCIDR?: string } = {}) {
  const clock = new SimulatedClock();
  const told: { type: string }[] = [];
  const refreshes: { type: string }[] = [];
  const podCIDRs: UpdatePodCIDRInput[] = [];
  let podCIDRFails = opts.podCIDRFails ?? 0;
  let watcher: ((e: AnyEventObject) => void) | null = null;
  const ok = <T>(value: T): ApiAnswer<T> => ({ ok: true, value, observedAtMs: clock.now() });
  const machine = nodeStatusMachine.provide({
    actors: {
      registerNode: fromPromise<ApiAnswer<NodeObject>, RegisterNodeInput>(async () => ok({ metadata: { name: 'n1', uid: 'uid-1' } })),
      readNodeFacts: fromPromise<ApiAnswer<NodeFacts>, { nodeName: string }>(async () => ok({ images: [] })),
      patchNodeStatus: fromPromise<ApiAnswer<NodeObject>, PatchNodeStatusInput>(async () => ok({ metadata: { name: 'n1', uid: 'uid-1' } })),
      watchNode: fromCallback<NodeRefreshRequestedEvent, WatchNodeInput>(({ sendBack, receive }) => {
        watcher = sendBack;
        receive((e) => void refreshes.push(e));
      }),
      updatePodCIDR: fromPromise<ApiAnswer<string>, UpdatePodCIDRInput>(async ({ input }) => {
        podCIDRs.push(input);
        if (podCIDRFails-- > 0) return { ok: false, error: unavailable, observedAtMs: clock.now() };
        return ok(input.podCIDR);
      }),
    },
  });
  const parent = setup({
    actors: { nodeStatus: machine, syncLoop: fromCallback<{ type: string }>(({ receive }) => { receive((e) => void told.push(e)); }) },
  }).createMachine({
    invoke: [
      { id: 'nodeStatus', src: 'nodeStatus', systemId: 'nodeStatus', input: { registration, facts, jitter: 0, startedAtMs: 0, ...(opts.runtimePodCIDR ? { runtimePodCIDR: opts.runtimePodCIDR } : {}) } },
      { src: 'syncLoop', systemId: 'syncLoop' },
    ],
  });
  const root = createActor(parent, { clock }).start();
  const actor = root.system.get('nodeStatus') as AnyActorRef;
  const observe = (node: LiveNode) => watcher!({ type: 'node.object.observed', node, observedAtMs: clock.now() });
  const tick = async (ms: number) => {
    clock.increment(ms);
    await settle(5);
  };
  return { actor, clock, told, refreshes, podCIDRs, observe, tick, send: (e: AnyEventObject) => watcher!(e) };
}

describe('nodeStatusMachine and the Node as the API server has it', () => {
  it('tells the syncLoop the labels and taints when they change, and nothing for a pod CIDR alone or an older reading', async () => {
    const { told, observe } = start();
    await settle(5);
    observe(live('5', { labels: { zone: 'a' } }));
    observe(live('6', { labels: { zone: 'a' }, podCIDR: '10.1.0.0/24' }));
    observe(live('4', { labels: { zone: 'b' } }));
    observe(live('7', { labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoExecute' }], podCIDR: '10.1.0.0/24' }));
    expect(told).toEqual([
      { type: 'node.object.changed', labels: { zone: 'a' }, taints: [] },
      { type: 'node.object.changed', labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoExecute' }] },
    ]);
  });

  it('hands a refresh request to watchNode, and passes its answer on after the Node it read', async () => {
    const { actor, told, refreshes, observe, send, clock } = start();
    await settle(5);
    observe(live('5'));
    actor.send({ type: 'node.refresh.requested' });
    expect(refreshes).toEqual([{ type: 'node.refresh.requested' }]);
    send({ type: 'node.refresh.answered', node: live('9', { labels: { zone: 'a' } }), observedAtMs: clock.now() });
    expect(told.slice(1)).toEqual([{ type: 'node.object.changed', labels: { zone: 'a' }, taints: [] }, { type: 'node.object.refreshed' }]);
    // A failed read answers too, so the pods waiting for it are not left waiting.
    actor.send({ type: 'node.refresh.requested' });
    send({ type: 'node.refresh.answered', error: unavailable, observedAtMs: clock.now() });
    expect(told.slice(3)).toEqual([{ type: 'node.object.refreshed' }]);
  });

  it('gives the runtime the Node\'s pod CIDR once, at the next status update, and again when it changes', async () => {
    const { podCIDRs, observe, tick } = start();
    await settle(5);
    observe(live('5', { podCIDR: '10.1.0.0/24' }));
    await tick(10_000);
    await tick(10_000);
    expect(podCIDRs).toEqual([{ podCIDR: '10.1.0.0/24', previous: '' }]);
    observe(live('6', { podCIDR: '10.2.0.0/24' }));
    await tick(10_000);
    expect(podCIDRs).toEqual([{ podCIDR: '10.1.0.0/24', previous: '' }, { podCIDR: '10.2.0.0/24', previous: '10.1.0.0/24' }]);
  });

  it('tries the pod CIDR again at the next update when the runtime refused it', async () => {
    const { podCIDRs, observe, tick, actor } = start({ podCIDRFails: 1 });
    await settle(5);
    observe(live('5', { podCIDR: '10.1.0.0/24' }));
    await tick(10_000);
    expect(podCIDRs).toHaveLength(1);
    await tick(10_000);
    expect(podCIDRs).toHaveLength(2);
    await tick(10_000);
    expect(podCIDRs).toHaveLength(2);
    expect(actor.getSnapshot().context.runtimePodCIDR).toBe('10.1.0.0/24');
  });

  it('does not give the runtime again the pod CIDR it took at start-up from the configuration', async () => {
    const { podCIDRs, observe, tick } = start({ runtimePodCIDR: '10.1.0.0/24' });
    await settle(5);
    observe(live('5', { podCIDR: '10.1.0.0/24' }));
    await tick(10_000);
    await tick(10_000);
    expect(podCIDRs).toEqual([]);
  });
});
