import { describe, expect, it } from 'vitest';
import { admissionFamily } from '../../../../src/domain/explain/families/admission.js';
import { pod, Records, UID } from '../records.js';

function rejected(r: Records, t: number, reason: string, message: string) {
  return r.add(t, { actor: 'syncLoop', type: 'action', name: 'emit', payload: { event: { type: 'pod.admission.rejected', pod: { namespace: 'default', name: 'web', uid: UID }, reason, message } } });
}

function nodeStarted(r: Records, labels: Record<string, string>, taints: unknown[] = []) {
  r.add(0, { actor: 'supervisor', type: 'action', name: 'spawn', payload: { child: 'syncLoop', src: 'syncLoop', input: { node: { name: 'n1', labels, taints } } } });
}

const text = (r: Records) => admissionFamily({ ...r.history(), node: r.all }).map((l) => [l.text, l.cites]);

describe('admissionFamily', () => {
  it('tells where the pod came from, once per source, and that it was admitted', () => {
    const r = new Records();
    r.add(1, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod()] } });
    r.add(2, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod()] } });
    r.admitted(3);
    expect(text(r)).toEqual([['received from the API server', [1]], ['admitted', [3]]]);
  });

  it('names the nodeSelector label the node lacks or holds otherwise', () => {
    const r = new Records();
    nodeStarted(r, { 'kubernetes.io/hostname': 'n1' });
    r.add(1, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod('web', 'default', UID, { nodeSelector: { disktype: 'ssd' } })] } });
    r.add(2, { actor: 'syncLoop', type: 'event', name: 'node.object.changed', payload: { labels: { disktype: 'hdd' }, taints: [] } });
    rejected(r, 3, 'NodeAffinity', "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
    expect(text(r).at(-1)).toEqual([
      "refused at admission: NodeAffinity: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector (nodeSelector disktype=ssd: the node's label is disktype=hdd)", [4]]);
  });

  it('names the NoExecute taint the pod does not tolerate', () => {
    const r = new Records();
    nodeStarted(r, {}, [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }, { key: 'other', effect: 'NoSchedule' }]);
    r.add(1, { actor: 'podConfig', kind: 'input', type: 'event', name: 'pod.source.snapshot', payload: { source: 'api', pods: [pod()] } });
    rejected(r, 2, 'TaintToleration', "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate");
    expect(text(r).at(-1)?.[0]).toBe("refused at admission: TaintToleration: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate (the node's taint dedicated=gpu:NoExecute is not tolerated)");
  });

  it('gives a resource refusal as Go words it, and ignores another pod\'s refusal', () => {
    const r = new Records();
    r.add(1, { actor: 'syncLoop', type: 'action', name: 'emit', payload: { event: { type: 'pod.admission.rejected', pod: { uid: 'other' }, reason: 'OutOfcpu', message: 'x' } } });
    rejected(r, 2, 'OutOfcpu', "Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 2000");
    expect(text(r)).toEqual([["refused at admission: OutOfcpu: Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 2000", [2]]]);
  });
});
