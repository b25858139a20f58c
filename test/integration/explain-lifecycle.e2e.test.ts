/**
 * `kubelet-ts explain` on a real log: a kubelet in cluster mode on the real control plane
 * (kube-lab.ts) and containerd runs a pod whose readiness probe turns it ready then not ready, one
 * that crash-loops (exit code 3, back-offs of 10 s then 20 s), one its liveness probe kills and
 * restarts until it backs off, one deleted through the API with a grace period of 5 s, and one its
 * worker kills when its activeDeadlineSeconds pass; then it stops, and explain tells each pod's
 * probes, kills and restarts from its journal, every line citing records the log holds. The story is asserted exactly but for container ids (see explain-story.ts);
 * a pod still looping when the kubelet stops is asserted up to the wait it was in.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { explainedLines, journalOf } from '../support/explain-story.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const exec = (...command: string[]) => ({ exec: { command } });
const FAMILIES = ['probes', 'kills', 'restarts'] as const;
const NS = 'kts-explain-life';

describeNeeding(kubeLabPartFor(endpoint), 'explain: probes, restarts and kills from a real log, containerd runtime', () => {
  let n: LabNode;
  const main = (p: LabPod | undefined) => p?.status?.containerStatuses?.[0];
  const ready = (p: LabPod | undefined) => p?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  /** Waiting in CrashLoopBackOff with this delay after at least `restarts` restarts. */
  const backingOff = (name: string, restarts: number, delay: string) => n.whileUp(`${name} backing off ${delay}`, async () => {
    const c = main(await n.pod(name));
    return (c?.restartCount ?? 0) >= restarts && c?.state?.waiting?.reason === 'CrashLoopBackOff' && c.state.waiting.message?.startsWith(`back-off ${delay} `);
  }, 90_000);

  beforeAll(async () => {
    n = await startLabNode({ name: NS, endpoint });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('runs the pods until each has shown its cause, then stops', async () => {
    await n.createPod('ready-flip', { containers: [{
      name: 'main', image: BUSYBOX,
      // The 6 s is how long the pod stays ready; the test waits for the Ready flips themselves, not this.
      command: ['sh', '-c', `touch /tmp/ready; sleep 6; rm /tmp/ready; ${SLEEP}`],
      readinessProbe: { ...exec('cat', '/tmp/ready'), periodSeconds: 1, failureThreshold: 1 },
    }] });
    // A container that runs a second and fails: the crash loop the test waits on (backingOff), not a wait of the test's.
    await n.createPod('crash', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'sleep 1; exit 3'] }] });
    await n.createPod('live', { containers: [{
      name: 'main', image: BUSYBOX,
      // The trap comes first: the first probe may run before `touch`, and a shell that is PID 1
      // without a trap ignores SIGTERM until the grace period's SIGKILL (exit 137).
      command: ['sh', '-c', `trap 'exit 0' TERM; touch /tmp/live; sleep 3 & wait $!; rm /tmp/live; ${SLEEP}`],
      livenessProbe: { ...exec('cat', '/tmp/live'), periodSeconds: 1, failureThreshold: 1 },
    }] });
    await n.createPod('deleted', { terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    await n.createPod('deadline', { activeDeadlineSeconds: 5, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });

    await n.whileUp('deleted Running', async () => (await n.pod('deleted'))?.status?.phase === 'Running', 60_000);
    expect((await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${NS}/pods/deleted`, { gracePeriodSeconds: 5 })).status).toBe(200);
    await n.whileUp('deleted gone', async () => (await n.pod('deleted')) === undefined, 60_000);
    await n.whileUp('ready-flip Ready', async () => ready(await n.pod('ready-flip')) === 'True', 30_000);
    await n.whileUp('ready-flip not Ready', async () => ready(await n.pod('ready-flip')) === 'False', 30_000);
    await n.whileUp('deadline Failed', async () => (await n.pod('deadline'))?.status?.reason === 'DeadlineExceeded', 60_000);
    await backingOff('live', 2, '10s');
    await backingOff('crash', 2, '20s');
    expect(await n.stop()).toBe(0);
  }, 180_000);

  it('tells the readiness probe turning the pod ready, then not ready with its output', () => {
    expect(explainedLines(journalOf(n.dir), `${NS}/ready-flip`, FAMILIES)).toEqual([
      'readiness probe of container main succeeded: ready',
      "readiness probe of container main failed: not ready (cat: can't open '/tmp/ready': No such file or directory)",
    ]);
  });

  it('tells the crash loop: each exit with code 3, the immediate first restart, back-offs of 10 s then 20 s', () => {
    expect(explainedLines(journalOf(n.dir), `${NS}/crash`, FAMILIES)).toEqual([
      'container main (<id>) exited with code 3 (Error)',
      'container main restarted (restart 1)',
      'container main (<id>) exited with code 3 (Error)',
      `CrashLoopBackOff: back-off 10s restarting failed container=main pod=${NS}/crash`,
      'container main restarted (restart 2)',
      'container main (<id>) exited with code 3 (Error)',
      `CrashLoopBackOff: back-off 20s restarting failed container=main pod=${NS}/crash`,
    ]);
  });

  it('tells each liveness failure with its output, the kill with Go\'s reason, the exit and the restart, until it backs off', () => {
    const cycle = (then: string) => [
      "liveness probe of container main failed (cat: can't open '/tmp/live': No such file or directory)",
      'container main (<id>) killed: LivenessProbe: Container main failed liveness probe, will be restarted',
      // The container's shell exits 0 on SIGTERM.
      'container main (<id>) exited with code 0 (Completed)',
      then,
    ];
    expect(explainedLines(journalOf(n.dir), `${NS}/live`, FAMILIES)).toEqual([
      ...cycle('container main restarted (restart 1)'),
      ...cycle('container main restarted (restart 2)'),
      ...cycle(`CrashLoopBackOff: back-off 10s restarting failed container=main pod=${NS}/live`),
    ]);
  });

  it('tells the API deletion with its grace period, and the kill that stopped the container and the sandbox', () => {
    expect(explainedLines(journalOf(n.dir), `${NS}/deleted`, FAMILIES)).toEqual([
      'kill requested: the pod was deleted through the API (grace period 5s)',
      'pod killed: container main (<id>) stopped, sandbox stopped',
    ]);
  });

  it('tells the kill the pod worker started when the pod\'s activeDeadlineSeconds passed, with Go\'s message and reason', () => {
    expect(explainedLines(journalOf(n.dir), `${NS}/deadline`, FAMILIES)).toEqual([
      'kill started by the pod worker: Pod was active on the node longer than the specified deadline (DeadlineExceeded, grace period 1s)',
      'pod killed: container main (<id>) stopped, sandbox stopped',
    ]);
  });
});
