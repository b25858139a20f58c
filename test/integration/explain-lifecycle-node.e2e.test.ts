/**
 * `kubelet-ts explain` on real logs of the kills the node itself asks for, on the real control plane
 * (kube-lab.ts) and containerd:
 * - an eviction: once a Burstable pod runs, the kubelet restarts with `evictionHard:
 *   {memory.available: <MemTotal − 50 Mi>}` (as eviction.e2e.test.ts does: more than is free while
 *   more than 50 Mi is in use), and the eviction manager evicts the pod (running first, so the kill
 *   always finds its container; the restarted kubelet's log tells it); explain names the eviction
 *   manager and Go's message with its threshold;
 * - a graceful node shutdown: a private system bus with the logind stand-in (as
 *   node-shutdown.e2e.test.ts), PowerOff asked on it; explain names node shutdown and Go's message.
 * Each story is asserted exactly but for container ids and the memory quantities of the eviction
 * message, which vary between runs (explain-story.ts says how).
 */
import { totalmem } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus } from '../../src/adapters/dbus/connection.js';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { explainedLines, journalOf } from '../support/explain-story.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { startPrivateBus, type PrivateBus } from '../support/private-bus.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const FAMILIES = ['kills'] as const;
const MAIN = { name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] };
const PRESSURE = [`evictionHard: {memory.available: "${Math.floor(totalmem() / 1024) - 50 * 1024}Ki"}`, 'evictionPressureTransitionPeriod: 5s'];
const RELAXED = ['evictionPressureTransitionPeriod: 5s'];
const SHUTDOWN_GRACE = ['shutdownGracePeriod: 20s', 'shutdownGracePeriodCriticalPods: 10s'];
const uid = process.getuid?.() ?? 0;

const failed = (n: LabNode, name: string) => n.whileUp(`${name} Failed`, async () => {
  const p = await n.pod(name);
  return p?.status?.phase === 'Failed' ? p : undefined;
}, 90_000);

describeNeeding(kubeLabPartFor(endpoint), 'explain: an eviction from a real log, containerd runtime', () => {
  const NS = 'kts-explain-ev';
  let n: LabNode;

  beforeAll(async () => {
    n = await startLabNode({ name: NS, endpoint, extraConfig: () => RELAXED });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
  }, 120_000);

  it('tells who evicted the pod, with Go\'s message and its threshold, and the kill that followed', async () => {
    await n.createPod('burst', { containers: [{ ...MAIN, resources: { requests: { memory: '20Mi' } } }] });
    await n.whileUp('burst Running', async () => (await n.pod('burst'))?.status?.phase === 'Running', 60_000);
    await n.restart(PRESSURE);
    const burst: LabPod = await failed(n, 'burst');
    expect(burst.status?.reason).toBe('Evicted');
    expect(await n.stop()).toBe(0);
    // The memory quantities of Go's message vary with the host: each becomes <q>.
    const quantities = (s: string) => s.replace(/(quantity|available): \d+(Ki|Mi|Gi)?/g, '$1: <q>');
    expect(explainedLines(journalOf(n.dir), `${NS}/burst`, FAMILIES).map(quantities)).toEqual([
      // A Burstable pod using less than its request: Go names no container.
      'kill requested by the eviction manager (grace period 1s): The node was low on resource: memory. Threshold quantity: <q>, available: <q>. ',
      'pod killed: container main (<id>) stopped, sandbox stopped',
    ]);
  }, 150_000);
});

describeNeeding(kubeLabPartFor(endpoint), 'explain: a graceful node shutdown from a real log, containerd runtime', () => {
  const NS = 'kts-explain-shut';
  let n: LabNode;
  let bus: PrivateBus;

  beforeAll(async () => {
    bus = await startPrivateBus({ inhibitDelayMaxSec: 5 });
    n = await startLabNode({
      name: NS, endpoint, extraConfig: () => SHUTDOWN_GRACE,
      env: () => ({ DBUS_SYSTEM_BUS_ADDRESS: bus.address, KUBELET_TS_LOGIND_CONF_DIR: bus.confDir }),
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
    await bus?.stop();
  }, 120_000);

  it('tells that node shutdown asked for the kill, with Go\'s message and the pod\'s grace period, and the kill that followed', async () => {
    await bus.waitFor('inhibitor.taken', 60_000);
    await n.createPod('regular', { terminationGracePeriodSeconds: 3, containers: [MAIN] });
    await n.whileUp('regular Running', async () => (await n.pod('regular'))?.status?.phase === 'Running', 60_000);
    const client = await connectBus(bus.address, { uid });
    await client.call({ destination: 'org.freedesktop.login1', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PowerOff', signature: 'b', body: [false] });
    client.close();
    const regular = await failed(n, 'regular');
    expect(regular.status?.reason).toBe('Terminated');
    await bus.waitFor('inhibitor.released', 30_000, (e) => e.who === 'kubelet');
    expect(await n.stop()).toBe(0);
    expect(explainedLines(journalOf(n.dir), `${NS}/regular`, FAMILIES)).toEqual([
      'kill requested by node shutdown (grace period 3s): Pod was terminated in response to imminent node shutdown.',
      'pod killed: container main (<id>) stopped, sandbox stopped',
    ]);
  }, 150_000);
});
