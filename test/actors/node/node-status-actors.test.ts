import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, toPromise, type AnyActorLogic } from 'xstate';
import { nodeStatusActors } from '../../../src/actors/node/node-status-actors.js';
import { ANNOTATION_CMAD, type NodeRegistrationSpec } from '../../../src/domain/node-status/initial-node.js';
import type { NodeStaticFacts } from '../../../src/domain/node-status/node-status.js';
import { FakeNodeApi } from './fake-node-api.js';

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
  const actors = nodeStatusActors({ api, heartbeat: api, listImages, clock, logger: pino({ level: 'silent' }) });
  const run = <I>(logic: AnyActorLogic, input: I) => {
    const a = createActor(logic, { input });
    a.start();
    return toPromise(a);
  };
  return { api, actors, run };
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
    const { actors, run } = setup(async () => {
      if (fail) throw new Error('runtime down');
      return [{ repoTags: ['a:1'], repoDigests: [], sizeBytes: 1 }];
    });
    await run(actors.readNodeFacts, { nodeName: 'n1' });
    fail = true;
    const r = await run(actors.readNodeFacts, { nodeName: 'n1' });
    expect(r).toMatchObject({ ok: true, value: { images: [{ repoTags: ['a:1'] }] } });
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
});
