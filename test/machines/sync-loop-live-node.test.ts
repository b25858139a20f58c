import { describe, expect, it } from 'vitest';
import { fromCallback } from 'xstate';
import type { AdmissionNode } from '../../src/domain/pod/admission-node.js';
import type { Pod } from '../../src/domain/pod/types.js';
import { syncLoopMachine, type PodAdmissionRejected, type SyncLoopInput } from '../../src/machines/sync-loop.machine.js';
import { startSyncLoopAmong } from '../support/sync-loop-peers.js';
import { noPodSources } from '../support/sync-loop-fixtures.js';

const idle = fromCallback(() => {});

function pod(uid: string, spec: Partial<Pod['spec']> = {}): Pod {
  return { metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [{ name: 'main', image: 'busybox' }], ...spec } };
}
const zoneA = (uid: string) => pod(uid, { nodeSelector: { zone: 'a' } });

function node(): AdmissionNode {
  return {
    name: 'node-a', operatingSystem: 'linux', labels: { 'kubernetes.io/os': 'linux' }, taints: [],
    allocatable: { cpuMillis: 2000, memoryBytes: 4 * 2 ** 30, ephemeralStorageBytes: 10 * 2 ** 30, pods: 110 },
  };
}

/** A syncLoop beside a fake node status (system id `nodeStatus`) that records the reads it is asked for. */
function start(liveNode = true) {
  const asked: { type: string }[] = [];
  const rejections: PodAdmissionRejected[] = [];
  const machine = syncLoopMachine.provide({
    actors: { podConfig: idle as never, pleg: idle as never, podWorker: idle as never, probe: idle as never, containerDeletor: idle as never },
  });
  const input: SyncLoopInput = {
    nodeName: 'node-a', node: node(), podConfig: noPodSources, podWorker: {}, pleg: {}, hostIP: '10.0.0.1', deadContainersKept: 1,
    ...(liveNode ? { liveNode } : {}),
  };
  const loop = startSyncLoopAmong(machine, input, { nodeStatus: (e) => void asked.push(e) });
  loop.on('pod.admission.rejected', (e: PodAdmissionRejected) => void rejections.push(e));
  const context = () => loop.getSnapshot().context as { pods: Record<string, { lifecycle: string }>; awaitingNode: Record<string, { asked: boolean }>; nodeRefreshing: boolean };
  return { loop, asked, rejections, context };
}

describe('syncLoopMachine and the live Node', () => {
  it('admits a pod selecting a label the Node got after registration, once the Node is seen with it', () => {
    const { loop, asked, context } = start();
    loop.send({ type: 'node.object.changed', labels: { 'kubernetes.io/os': 'linux', zone: 'a' }, taints: [] });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1')] });
    expect(context().pods.u1?.lifecycle).toBe('active');
    expect(asked).toEqual([]);
  });

  it('refuses with TaintToleration once the Node has a NoExecute taint the pod does not tolerate', () => {
    const { loop, rejections } = start();
    loop.send({ type: 'node.object.changed', labels: { 'kubernetes.io/os': 'linux' }, taints: [{ key: 'maintenance', effect: 'NoExecute' }] });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1')] });
    expect(rejections.map((r) => r.reason)).toEqual(['TaintToleration']);
  });

  it('holds a pod node affinity alone refused, asks for the Node once, and admits it when the read finds the label', () => {
    const { loop, asked, rejections, context } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1'), zoneA('u2')] });
    expect(asked).toEqual([{ type: 'node.refresh.requested' }]);
    expect(Object.keys(context().awaitingNode)).toEqual(['u1', 'u2']);
    expect(context().pods.u1).toBeUndefined();
    loop.send({ type: 'node.object.changed', labels: { 'kubernetes.io/os': 'linux', zone: 'a' }, taints: [] });
    loop.send({ type: 'node.object.refreshed' });
    expect(context().pods.u1?.lifecycle).toBe('active');
    expect(context().pods.u2?.lifecycle).toBe('active');
    expect(context().awaitingNode).toEqual({});
    expect(context().nodeRefreshing).toBe(false);
    expect(rejections).toEqual([]);
  });

  it('refuses the held pod for good when the read Node still lacks the label (or could not be read)', () => {
    const { loop, asked, rejections, context } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1')] });
    loop.send({ type: 'node.object.refreshed' });
    expect(rejections.map((r) => [r.pod.uid, r.reason])).toEqual([['u1', 'NodeAffinity']]);
    expect(context().pods.u1?.lifecycle).toBe('rejected');
    expect(asked).toHaveLength(1);
  });

  it('asks again for the pods that came while a read was under way', () => {
    const { loop, asked, context } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1')] });
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u2')] });
    expect(asked).toHaveLength(1);
    expect(context().awaitingNode.u2?.asked).toBe(false);
    loop.send({ type: 'node.object.refreshed' });
    expect(context().pods.u1?.lifecycle).toBe('rejected');
    expect(asked).toHaveLength(2);
    expect(context().awaitingNode.u2?.asked).toBe(true);
    loop.send({ type: 'node.object.changed', labels: { zone: 'a' }, taints: [] });
    loop.send({ type: 'node.object.refreshed' });
    expect(context().pods.u2?.lifecycle).toBe('active');
  });

  it('forgets a held pod removed from its source, and keeps its latest form otherwise', () => {
    const { loop, context } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1'), zoneA('u2')] });
    loop.send({ type: 'pod.config.updated', op: 'REMOVE', source: 'api', pods: [zoneA('u1')] });
    loop.send({ type: 'pod.config.updated', op: 'UPDATE', source: 'api', pods: [pod('u2', { nodeSelector: { zone: 'a' }, activeDeadlineSeconds: 5 })] });
    expect(Object.keys(context().awaitingNode)).toEqual(['u2']);
    loop.send({ type: 'node.object.changed', labels: { zone: 'a' }, taints: [] });
    loop.send({ type: 'node.object.refreshed' });
    expect(context().pods.u1).toBeUndefined();
    expect((loop.getSnapshot().context.pods.u2?.pod as Pod).spec.activeDeadlineSeconds).toBe(5);
  });

  it('does not take a held pod the runtime still runs (from before a restart) for an orphan', () => {
    const { loop } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [zoneA('u1')] });
    loop.send({ type: 'pod.config.sourcesReady' });
    loop.send({ type: 'pleg.events', events: [], runningPodUids: ['u1', 'stray'] });
    expect(Object.keys(loop.getSnapshot().context.orphans as object)).toEqual(['stray']);
  });

  it('refuses at once when something besides node affinity fails too, or standalone', () => {
    const { loop, asked, rejections } = start();
    loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'api', pods: [pod('u1', { nodeSelector: { zone: 'a' }, nodeName: 'other' })] });
    expect(rejections.map((r) => r.reason)).toEqual(['NodeAffinity']);
    expect(asked).toEqual([]);
    const standalone = start(false);
    standalone.loop.send({ type: 'pod.config.updated', op: 'ADD', source: 'file', pods: [zoneA('u1')] });
    expect(standalone.rejections.map((r) => r.reason)).toEqual(['NodeAffinity']);
    expect(standalone.asked).toEqual([]);
  });
});
