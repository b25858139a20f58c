import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, sendTo, SimulatedClock, toPromise, type AnyActorLogic } from 'xstate';
import { IMAGE_LIST_REFRESH_MS, nodeStatusActors } from '../../../src/actors/node/node-status-actors.js';
import { ANNOTATION_CMAD, type NodeRegistrationSpec } from '../../../src/domain/node-status/initial-node.js';
import type { NodeStaticFacts } from '../../../src/domain/node-status/node-status.js';
import { FakeNodeApi } from './fake-node-api.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { NodeObject } from '../../../src/domain/node-status/api-objects.js';
import type { FollowNode } from '../../../src/ports/apiserver.js';
import { settle } from '../../support/settle.js';

const registration: NodeRegistrationSpec = {
  nodeName: 'n1', hostname: 'n1', operatingSystem: 'linux', architecture: 'amd64',
  nodeLabels: { team: 'a' }, registerWithTaints: [], registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
};
const facts: NodeStaticFacts = {
  hostname: 'n1', nodeIps: ['10.0.0.5'],
  capacity: { cpuMillis: 2000, memoryBytes: 2 ** 30, ephemeralStorageBytes: 2 ** 34, pods: 110 },
  allocatable: { cpuMillis: 2000, memoryBytes: 2 ** 30, ephemeralStorageBytes: 2 ** 34, pods: 110 },
  nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', osImage: 'o', containerRuntimeVersion: 'embedded://0.1.0', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
  kubeletPort: 10250,
  maxImages: 50,
};

function setup(listImages = async () => [{ repoTags: ['busybox:1'], repoDigests: [], sizeBytes: 5 }]) {
  const api = new FakeNodeApi();
  const clock = new SimulatedClock();
  // The informer's side of the Node: the test hands it each version the list or watch would bring.
  const follower = { onNode: null as ((n: NodeObject) => void) | null, stopped: false };
  const followNode: FollowNode = (_name, onNode) => {
    follower.onNode = onNode;
    return { stop: () => { follower.stopped = true; } };
  };
  const runtimeConfigs: string[] = [];
  const updateRuntimeConfig = async (cidr: string) => {
    if (cidr === 'refused') throw new KubeletError('KLT_ERR_CRI_UNAVAILABLE', 'runtime down');
    runtimeConfigs.push(cidr);
  };
  const actors = nodeStatusActors({ api, heartbeat: api, listImages, followNode, updateRuntimeConfig, clock, logger: pino({ level: 'silent' }) });
  const run = <I>(logic: AnyActorLogic, input: I) => {
    const a = createActor(logic, { input });
    a.start();
    return toPromise(a);
  };
  return { api, actors, run, follower, runtimeConfigs, clock };
}

describe('nodeStatusActors', () => {
  it('registers the Node with labels, annotation and a first status', async () => {
    const { api, actors, run } = setup();
    const r = await run(actors.registerNode, { registration, facts, health: { runtime: null, pleg: null } });
    expect(r).toMatchObject({ ok: true, value: { metadata: { uid: 'uid-n1' } } });
    const node = api.nodes.get('n1')!;
    expect(node.metadata.labels).toMatchObject({ team: 'a', 'kubernetes.io/hostname': 'n1' });
    expect(node.status?.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }]);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it('tells of every registration answer, created or refused (the kubelet server waits for the first)', async () => {
    const api = new FakeNodeApi();
    let answers = 0;
    const actors = nodeStatusActors({
      api, heartbeat: api, listImages: async () => [], followNode: () => ({ stop: () => {} }), updateRuntimeConfig: async () => {},
      clock: new SimulatedClock(), logger: pino({ level: 'silent' }), onRegistrationAnswered: () => answers++,
    });
    const register = async () => {
      const a = createActor(actors.registerNode, { input: { registration, facts, health: { runtime: null, pleg: null } } });
      a.start();
      return toPromise(a);
    };
    expect(await register()).toMatchObject({ ok: true });
    expect(answers).toBe(1);
    expect(await register()).toMatchObject({ ok: false, error: { code: 'KLT_ERR_API_ALREADY_EXISTS' } });
    expect(answers).toBe(2);
  });

  it('answers AlreadyExists as data, and reconciling patches only what drifted', async () => {
    const { api, actors, run } = setup();
    api.nodes.set('n1', { metadata: { name: 'n1', uid: 'old', labels: { 'kubernetes.io/arch': 'arm64', mine: 'x' } } });
    const r = await run(actors.registerNode, { registration, facts, health: { runtime: null, pleg: null } });
    expect(r).toMatchObject({ ok: false, error: { code: 'KLT_ERR_API_ALREADY_EXISTS' } });
    const rec = await run(actors.reconcileNode, { registration });
    expect(rec).toMatchObject({ ok: true, value: { metadata: { uid: 'old' } } });
    expect(api.calls.slice(-2)).toEqual(['getNode', 'patchNode']);
    expect(api.nodes.get('n1')!.metadata.labels).toMatchObject({ 'kubernetes.io/arch': 'amd64', mine: 'x' });
    expect(api.nodes.get('n1')!.metadata.annotations).toEqual({ [ANNOTATION_CMAD]: 'true' });
    await run(actors.reconcileNode, { registration });
    expect(api.calls.slice(-1)).toEqual(['getNode']);
  });

  it('keeps the last image list when the runtime cannot list images', async () => {
    let fail = false;
    let lists = 0;
    const { actors, run, clock } = setup(async () => {
      lists++;
      if (fail) throw new Error('runtime down');
      return [{ repoTags: ['a:1'], repoDigests: [], sizeBytes: 1 }];
    });
    await run(actors.readNodeFacts, { nodeName: 'n1' });
    fail = true;
    clock.increment(IMAGE_LIST_REFRESH_MS);
    const r = await run(actors.readNodeFacts, { nodeName: 'n1' });
    expect(lists).toBe(2);
    expect(r).toMatchObject({ ok: true, value: { images: [{ repoTags: ['a:1'] }] } });
  });

  it('lists images at most every 30 s, as Go refreshes the list the node status reads', async () => {
    let lists = 0;
    const { actors, run, clock } = setup(async () => [{ repoTags: [`a:${++lists}`], repoDigests: [], sizeBytes: 1 }]);
    await run(actors.readNodeFacts, { nodeName: 'n1' });
    clock.increment(IMAGE_LIST_REFRESH_MS - 1);
    const cached = await run(actors.readNodeFacts, { nodeName: 'n1' });
    expect(cached).toMatchObject({ value: { images: [{ repoTags: ['a:1'] }] } });
    clock.increment(1);
    const fresh = await run(actors.readNodeFacts, { nodeName: 'n1' });
    expect(fresh).toMatchObject({ value: { images: [{ repoTags: ['a:2'] }] } });
    expect(lists).toBe(2);
  });

  it('re-opens connections from the second PATCH try on', async () => {
    const { api, actors, run } = setup();
    await run(actors.registerNode, { registration, facts, health: { runtime: null, pleg: null } });
    await run(actors.patchNodeStatus, { nodeName: 'n1', status: {}, attempt: 0 });
    expect(api.reopens).toBe(0);
    api.failNext = ['KLT_ERR_API_UNAVAILABLE'];
    const r = await run(actors.patchNodeStatus, { nodeName: 'n1', status: {}, attempt: 1 });
    expect(r).toMatchObject({ ok: false, error: { code: 'KLT_ERR_API_UNAVAILABLE' } });
    expect(api.reopens).toBe(1);
  });

  it('sends the Node only when its labels, taints or pod CIDR changed: status heartbeats journal nothing', async () => {
    const { actors, follower } = setup();
    const sent: { type: string; node?: { labels: Record<string, string>; podCIDR: string } }[] = [];
    const parent = createActor(setupMachine(actors.watchNode, sent)).start();
    const version = (rv: string, labels: Record<string, string>, podCIDR?: string, heartbeat = rv): NodeObject => ({
      metadata: { name: 'n1', resourceVersion: rv, labels },
      spec: podCIDR ? { podCIDR, podCIDRs: [podCIDR] } : {},
      status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat, lastTransitionTime: 't', reason: '', message: '' }] },
    });
    follower.onNode!(version('1', { a: '1' }));
    follower.onNode!(version('2', { a: '1' }));
    follower.onNode!(version('3', { a: '1' }));
    follower.onNode!(version('4', { a: '1', zone: 'a' }));
    follower.onNode!(version('5', { zone: 'a', a: '1' }, '10.1.0.0/24'));
    expect(sent.map((e) => [e.type, e.node?.labels, e.node?.podCIDR])).toEqual([
      ['node.object.observed', { a: '1' }, ''],
      ['node.object.observed', { a: '1', zone: 'a' }, ''],
      ['node.object.observed', { zone: 'a', a: '1' }, '10.1.0.0/24'],
    ]);
    parent.stop();
    expect(follower.stopped).toBe(true);
  });

  it('answers a refresh with the Node it GETs, or with the error', async () => {
    const { api, actors } = setup();
    const sent: { type: string; node?: { labels: Record<string, string> }; error?: { code: string } }[] = [];
    const parent = createActor(setupMachine(actors.watchNode, sent)).start();
    api.nodes.set('n1', { metadata: { name: 'n1', resourceVersion: '8', labels: { zone: 'a' } } });
    parent.send({ type: 'ask' });
    await settle(5);
    api.failNext = ['KLT_ERR_API_UNAVAILABLE'];
    parent.send({ type: 'ask' });
    await settle(5);
    expect(sent.map((e) => [e.type, e.node?.labels ?? e.error?.code])).toEqual([
      ['node.refresh.answered', { zone: 'a' }],
      ['node.refresh.answered', 'KLT_ERR_API_UNAVAILABLE'],
    ]);
  });

  it('gives the runtime the pod CIDR, answering with it, or with the runtime\'s error', async () => {
    const { actors, run, runtimeConfigs } = setup();
    expect(await run(actors.updatePodCIDR, { podCIDR: '10.1.0.0/24', previous: '' })).toMatchObject({ ok: true, value: '10.1.0.0/24' });
    expect(runtimeConfigs).toEqual(['10.1.0.0/24']);
    expect(await run(actors.updatePodCIDR, { podCIDR: 'refused', previous: '10.1.0.0/24' })).toMatchObject({ ok: false, error: { code: 'KLT_ERR_CRI_UNAVAILABLE' } });
  });
});

/** A parent invoking `watchNode` for n1, recording what it sends back, and asking it for a refresh on `ask`. */
function setupMachine(logic: AnyActorLogic, sent: object[]) {
  return createMachine({
    invoke: { id: 'watchNode', src: logic, input: { nodeName: 'n1' } },
    on: {
      ask: { actions: sendTo('watchNode', { type: 'node.refresh.requested' }) },
      '*': { actions: ({ event }) => void sent.push(event) },
    },
  });
}
