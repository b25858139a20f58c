/**
 * Graceful node shutdown end to end: the kubelet in cluster mode on the real control plane
 * (kube-lab.ts), a real dbus-daemon as the system bus (private-bus.ts) with the logind stand-in
 * (logind-standin.py) owning org.freedesktop.login1, on the embedded runtime and on containerd
 * (KUBELET_IT_CRI):
 * 1. With no system bus at start-up the kubelet says so once and runs on: the Node is Ready, and no
 *    retry comes in a second of 50 ms reconnect periods.
 * 2. Restarted on the private bus with shutdownGracePeriod 20s and shutdownGracePeriodCriticalPods
 *    10s, it raises logind's InhibitDelayMaxUSec from 5 s to 20 s (the drop-in and a reload through
 *    systemd's KillUnit) and takes a delay lock as who=kubelet.
 * 3. A regular and a critical (system-node-critical) pod run, each with a preStop hook that leaves a
 *    mark and takes 2 s. PowerOff on the bus (what `systemctl poweroff` asks logind) makes the
 *    stand-in signal PrepareForShutdown(true): the Node turns NotReady with "node is shutting down",
 *    the regular pod's preStop runs and it ends Failed with reason Terminated and Go's message and a
 *    DisruptionTarget condition, then the critical pod's, then the lock is released and the
 *    stand-in powers off, well within the 20 s. The timeline is printed. A pod created afterwards is
 *    refused with NodeShutdown.
 * 4. Stopped, it leaves a journal with the PrepareForShutdown signal as an input that replays identically.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectBus } from '../../src/adapters/dbus/connection.js';
import { readJournal } from '../../src/adapters/journal-file/reader.js';
import { kubeLabPartFor } from '../support/kube-lab.js';
import { runKubeletCommand } from '../support/kubelet-bin.js';
import { journalMark, untilPassAnswered } from '../support/kubelet-journal.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode, type LabPod } from '../support/lab-node.js';
import { startPrivateBus, type PrivateBus } from '../support/private-bus.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const RUNTIMES = [{ name: 'embedded', endpoint: 'embedded' }, { name: 'containerd', endpoint: containerdEndpoint() }];
const GRACE = ['shutdownGracePeriod: 20s', 'shutdownGracePeriodCriticalPods: 10s'];
/** The kubelet's reconnect period here: short, so that a retry would show within a PLEG relist. */
const RECONNECT_MS = 50;
const RELIST = 'xstate.after.relistPeriod.pleg.waiting';
const MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
const uid = process.getuid?.() ?? 0;

/** A pod whose preStop leaves its mark in the shared host directory, then takes 2 s. */
const markedPod = (marks: string, name: string, extra: Record<string, unknown> = {}) => ({
  terminationGracePeriodSeconds: 30,
  volumes: [{ name: 'out', hostPath: { path: marks, type: 'DirectoryOrCreate' } }],
  containers: [{
    name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP],
    volumeMounts: [{ name: 'out', mountPath: '/out' }],
    // The hook's 2 s stand for a real preStop's work: the shutdown must wait for it within the grace period.
    lifecycle: { preStop: { exec: { command: ['sh', '-c', `echo prestop > /out/${name}; sleep 2`] } } },
  }],
  ...extra,
});

for (const rt of RUNTIMES) describeNeeding(kubeLabPartFor(rt.endpoint), `graceful node shutdown on the real control plane, ${rt.name} runtime`, () => {
  let n: LabNode;
  let bus: PrivateBus;
  let busAddress = '';
  const ready = async () => (await n.nodeObject()).status?.conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    bus = await startPrivateBus({ inhibitDelayMaxSec: 5 });
    busAddress = `unix:path=${join(bus.dir, 'no-such-bus.sock')}`;
    n = await startLabNode({
      name: `kts-shut-${rt.name}`,
      endpoint: rt.endpoint,
      extraConfig: () => GRACE,
      env: () => ({ DBUS_SYSTEM_BUS_ADDRESS: busAddress, KUBELET_TS_LOGIND_CONF_DIR: bus.confDir, KUBELET_TS_DBUS_RECONNECT_PERIOD_MS: String(RECONNECT_MS) }),
    });
  }, 120_000);

  afterAll(async () => {
    await n?.dispose();
    await bus?.stop();
  }, 120_000);

  it('says once that there is no system bus and runs on: the Node is Ready', async () => {
    await n.whileUp('Node Ready', async () => (await ready())?.status === 'True', 60_000);
    const failures = () => n.kubelet().stderr().split('\n').filter((l) => l.includes('Failed to start node shutdown manager'));
    await n.whileUp('the manager\'s start-up failure logged', () => failures().length > 0, 10_000);
    // Then two of the PLEG's 1 s relists, on the kubelet's own timers: at least 20 of its 50 ms
    // reconnect periods have passed since the failure, time for a retry to have been logged.
    const root = join(n.dir, 'root');
    const relisted = await untilPassAnswered(root, journalMark(root), 'pleg', RELIST, 10_000, n.kubelet().stderr);
    await untilPassAnswered(root, relisted, 'pleg', RELIST, 10_000, n.kubelet().stderr);
    expect(n.kubelet().stderr()).not.toContain('Unable to watch the node for shutdown events');
    const lines = failures();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no-such-bus.sock');
  }, 90_000);

  it('on the private bus raises logind\'s InhibitDelayMaxUSec to the grace period and takes a delay lock as kubelet', async () => {
    busAddress = bus.address;
    await n.restart();
    expect(await bus.waitFor('logind.reloaded', 60_000)).toMatchObject({ inhibitDelayMaxUSec: 20_000_000 });
    expect(await bus.waitFor('inhibitor.taken', 30_000)).toMatchObject({ what: 'shutdown', who: 'kubelet', why: 'Kubelet needs time to handle node shutdown', mode: 'delay' });
    await n.whileUp('Node Ready', async () => (await ready())?.status === 'True', 60_000);
  }, 120_000);

  it('on PrepareForShutdown marks the Node NotReady, stops the regular pod then the critical one with Go\'s status, and releases the lock within the grace period', async () => {
    await n.createPod('regular', markedPod(join(n.dir, 'marks'), 'regular'));
    await n.createPod('critical', markedPod(join(n.dir, 'marks'), 'critical', { priorityClassName: 'system-node-critical' }));
    for (const name of ['regular', 'critical']) await n.whileUp(`${name} Running`, async () => (await n.pod(name))?.status?.phase === 'Running', 60_000);
    expect((await n.pod('critical'))?.spec).toMatchObject({ priority: 2_000_001_000 });

    const timeline: { atMs: number; what: string }[] = [];
    const mark = (what: string, atMs = Date.now()) => timeline.push({ atMs, what });
    const t0 = Date.now();
    mark('PowerOff called on org.freedesktop.login1 (what systemctl poweroff does)', t0);
    const client = await connectBus(bus.address, { uid });
    await client.call({ destination: 'org.freedesktop.login1', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PowerOff', signature: 'b', body: [false] });
    client.close();

    const notReady = await n.whileUp('Node NotReady', async () => {
      const c = await ready();
      return c?.status === 'False' ? c : undefined;
    }, 15_000);
    mark(`Node Ready=False seen: ${notReady.reason}, "${notReady.message}"`);
    expect(notReady).toMatchObject({ reason: 'KubeletNotReady', message: 'node is shutting down' });

    const failed: Record<string, LabPod> = {};
    await n.whileUp('both pods Failed', async () => {
      for (const name of ['regular', 'critical']) {
        if (failed[name]) continue;
        const p = (await n.pod(name)) as LabPod | undefined;
        if (p?.status?.phase === 'Failed') {
          failed[name] = p;
          mark(`${name} Failed seen in the API server`);
        }
      }
      return Object.keys(failed).length === 2;
    }, 30_000);
    const released = await bus.waitFor('inhibitor.released', 30_000, (e) => e.who === 'kubelet');
    const poweroff = await bus.waitFor('poweroff', 30_000);
    const prepare = await bus.waitFor('shutdown.prepare');
    mark('logind stand-in: PrepareForShutdown(true) signalled', prepare.wallMs);
    mark('logind stand-in: the kubelet\'s delay lock released', released.wallMs);
    mark(`logind stand-in: power-off (timed out: ${String(poweroff.timedOut)})`, poweroff.wallMs);
    const marks: Record<string, number> = {};
    for (const name of ['regular', 'critical']) {
      marks[name] = statSync(join(n.dir, 'marks', name)).mtimeMs;
      mark(`${name}'s preStop ran`, marks[name]);
    }
    timeline.sort((a, b) => a.atMs - b.atMs);
    console.log(`graceful node shutdown timeline (${rt.name} runtime), ms after PowerOff:\n${timeline.map((e) => `  ${String(Math.round(e.atMs - t0)).padStart(6)}  ${e.what}`).join('\n')}`);

    for (const name of ['regular', 'critical']) {
      expect(failed[name]!.status).toMatchObject({ phase: 'Failed', reason: 'Terminated', message: MESSAGE });
      expect(failed[name]!.status?.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: MESSAGE }));
    }
    // The regular pod first: its preStop (2 s) and kill end before the critical pod's preStop starts.
    expect(marks.critical! - marks.regular!).toBeGreaterThanOrEqual(1_900);
    expect(released.wallMs).toBeGreaterThan(marks.critical!);
    expect(poweroff).toMatchObject({ timedOut: false });
    expect(poweroff.wallMs - prepare.wallMs).toBeLessThan(20_000);
  }, 120_000);

  it('refuses a pod created while the node shuts down with NodeShutdown', async () => {
    await n.createPod('late', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    const late = await n.whileUp('late Failed', async () => {
      const p = await n.pod('late');
      return p?.status?.phase === 'Failed' ? p : undefined;
    }, 30_000);
    // Go's rejectPod prefixes the admit handler's message.
    expect(late.status).toMatchObject({ reason: 'NodeShutdown', message: 'Pod was rejected: Pod was rejected as the node is shutting down.' });
  }, 60_000);

  it('stops cleanly and leaves a journal that replays identically, the shutdown signal among its inputs', async () => {
    expect(await n.stop()).toBe(0);
    const journal = join(n.dir, 'root', 'events', 'latest.jsonl');
    // Read as records: a delivery's line may refer to the send that carried it.
    const { records } = readJournal(journal);
    expect(records).toContainEqual(expect.objectContaining({ kind: 'input', name: 'shutdown.prepare.signalled', payload: expect.objectContaining({ shuttingDown: true }) }));
    expect(records.filter((r) => r.name === 'pod.evict.requested' && JSON.stringify(r.payload).includes('"requester":"nodeShutdown"'))).toHaveLength(2);
    const r = runKubeletCommand('replay', [journal]);
    expect(r.stdout).toMatch(/^replay: identical: \d+ records/);
    expect(r.status).toBe(0);
  }, 30_000);
});
