/**
 * Pod readiness gates on the real control plane (kube-lab.ts), as the upstream [NodeConformance]
 * spec "Pods should support pod readiness gates" drives them: a pod with two gates is not Ready
 * while their conditions are missing or False, though its container is; it becomes Ready once
 * both are patched True through the status subresource, and not Ready again when one goes False.
 * The conditions others set stay as they set them, whatever the kubelet writes after.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPart, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { describeNeeding } from '../support/real-parts.js';
import { journalMark, untilPassAnswered } from '../support/kubelet-journal.js';

const GATE1 = 'k8s.io/test-condition1';
const GATE2 = 'k8s.io/test-condition2';

describeNeeding(kubeLabPart(), 'pod readiness gates on the real control plane, embedded runtime', () => {
  let n: LabNode;
  const condition = (pod: LabPod | undefined, type: string) => pod?.status?.conditions?.find((c) => c.type === type);
  const patchGates = async (gates: Record<string, 'True' | 'False'>) => {
    const conditions = Object.entries(gates).map(([type, status]) => ({ type, status, lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }));
    const res = await labApi(n.lab, 'PATCH', `/api/v1/namespaces/${n.ns}/pods/gated/status`, { status: { conditions } }, 'application/strategic-merge-patch+json');
    expect(res.status).toBe(200);
  };
  const readyBecomes = (status: 'True' | 'False', ms: number) => n.whileUp(`gated Ready=${status}`, async () => {
    const p = await n.pod('gated');
    return condition(p, 'Ready')?.status === status ? p : undefined;
  }, ms);

  beforeAll(async () => {
    n = await startLabNode({ name: 'kts-gates', endpoint: 'embedded' });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('is not Ready while its gates\' conditions do not exist, though its container is ready', async () => {
    await n.createPod('gated', { readinessGates: [{ conditionType: GATE1 }, { conditionType: GATE2 }], containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    const pod = await n.whileUp('gated\'s container ready', async () => {
      const p = await n.pod('gated');
      return p?.status?.containerStatuses?.[0]?.ready ? p : undefined;
    }, 60_000);
    expect(condition(pod, 'ContainersReady')?.status).toBe('True');
    expect(condition(pod, 'Ready')).toMatchObject({
      status: 'False', reason: 'ReadinessGatesNotReady',
      message: `corresponding condition of pod readiness gate "${GATE1}" does not exist., corresponding condition of pod readiness gate "${GATE2}" does not exist.`,
    });
  }, 90_000);

  it('stays not Ready with one gate True, and becomes Ready promptly once both are', async () => {
    await patchGates({ [GATE1]: 'True' });
    const half = await n.whileUp('Ready\'s message naming only the second gate', async () => {
      const p = await n.pod('gated');
      return condition(p, 'Ready')?.message === `corresponding condition of pod readiness gate "${GATE2}" does not exist.` ? p : undefined;
    }, 10_000);
    expect(condition(half, 'Ready')?.status).toBe('False');
    await patchGates({ [GATE2]: 'True' });
    const started = Date.now();
    const ready = await readyBecomes('True', 10_000);
    // Prompt: the kubelet reacts to the update, not to its next resync (a minute away).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect([condition(ready, GATE1)?.status, condition(ready, GATE2)?.status]).toEqual(['True', 'True']);
  }, 30_000);

  it('is not Ready again when a gate goes False, and keeps the gates\' conditions as they were set', async () => {
    await patchGates({ [GATE1]: 'False' });
    const pod = await readyBecomes('False', 10_000);
    expect(condition(pod, 'Ready')).toMatchObject({ reason: 'ReadinessGatesNotReady', message: `the status of pod readiness gate "${GATE1}" is not "True", but False` });
    // The kubelet's chance to write a stale copy of them: its status manager's next resync, and the
    // patches that resync sent answered.
    const root = join(n.dir, 'root');
    await untilPassAnswered(root, journalMark(root), 'statusManager', 'xstate.after.syncPeriod.statusManager.syncing', 20_000, n.kubelet().stderr);
    const later = await n.pod('gated');
    expect([condition(later, GATE1)?.status, condition(later, GATE2)?.status, condition(later, 'Ready')?.status]).toEqual(['False', 'True', 'False']);
  }, 40_000);
});
