/**
 * The node shutdown machine with its real effects (the Logind adapter, our D-Bus client,
 * systemd-inhibit) on a real dbus-daemon with the logind stand-in; the syncLoop and nodeStatus are
 * stand-ins that stop a pod in a set time.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, createMachine, fromCallback, type AnyActorRef } from 'xstate';
import { createNodeShutdownActors, DBUS_RECONNECT_PERIOD_MS } from '../../../src/actors/node-shutdown/node-shutdown-actors.js';
import { connectBus } from '../../../src/adapters/dbus/connection.js';
import { createLogindBus } from '../../../src/adapters/logind/logind-bus.js';
import { systemClock } from '../../../src/adapters/system-clock.js';
import { migrateConfig } from '../../../src/domain/node-shutdown/shutdown-groups.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { nodeShutdownMachine, type NodeShutdownChangedEvent } from '../../../src/machines/node-shutdown.machine.js';
import type { PodEvictRequestedEvent } from '../../../src/machines/sync-loop.machine.js';
import { startPrivateBus, type PrivateBus } from '../../support/private-bus.js';

const uid = process.getuid?.() ?? 0;
let bus: PrivateBus | null = null;
let stop: (() => void) | null = null;

afterEach(async () => {
  vi.useRealTimers();
  stop?.();
  stop = null;
  await bus?.stop();
  bus = null;
});

const pod = (name: string, priority?: number): Pod => ({
  metadata: { name, namespace: 'default', uid: name },
  spec: { containers: [], terminationGracePeriodSeconds: 30, ...(priority !== undefined ? { priority } : {}) },
} as Pod);

function run(address: string, confDir: string, pods: Pod[]) {
  const logind = createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: address }, uid, configDirectory: confDir });
  const connects = { count: 0 };
  const lines: { msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (chunk: Buffer, _e, done) => { lines.push(JSON.parse(chunk.toString())); done(); } }));
  const log: { atMs: number; what: string }[] = [];
  const t0 = Date.now();
  const note = (what: string) => log.push({ atMs: Date.now() - t0, what });
  const machine = nodeShutdownMachine.provide({
    actors: createNodeShutdownActors({
      logind: { connect: () => { connects.count += 1; return logind.connect(); } },
      activePods: () => pods,
      clock: systemClock,
      logger,
    }),
  });
  const peer = (id: string) => fromCallback<PodEvictRequestedEvent | NodeShutdownChangedEvent>(({ receive, system }) => {
    receive((event) => {
      if (event.type === 'node.shutdown.changed') return note(`${id} shuttingDown=${event.shuttingDown}`);
      note(`kill ${event.podUid} grace=${event.gracePeriodSeconds}`);
      // Each pod takes 1 s to stop.
      setTimeout(() => {
        note(`${event.podUid} stopped`);
        (system.get('nodeShutdown') as AnyActorRef).send({ type: 'pod.eviction.finished', podUid: event.podUid, evicted: true });
      }, 1_000);
    });
  });
  const actor = createActor(createMachine({
    invoke: [
      { id: 'nodeShutdown', systemId: 'nodeShutdown', src: machine, input: { nodeName: 'n1', classes: migrateConfig(20, 10) } },
      { id: 'syncLoop', systemId: 'syncLoop', src: peer('syncLoop') },
      { id: 'nodeStatus', systemId: 'nodeStatus', src: peer('nodeStatus') },
    ],
  }));
  actor.start();
  stop = () => actor.stop();
  const manager = () => actor.getSnapshot().children.nodeShutdown!;
  manager().send({ type: 'runtime.up' });
  return { manager, log, lines, t0, connects };
}

const valueOf = (m: AnyActorRef) => JSON.stringify(m.getSnapshot().value);

describe('createNodeShutdownActors with the node shutdown machine (real dbus-daemon, logind stand-in)', () => {
  it('raises the delay, holds the lock, stops regular then critical pods on PrepareForShutdown, then releases the lock', async () => {
    bus = await startPrivateBus({ inhibitDelayMaxSec: 5 });
    const { manager, log } = run(bus.address, bus.confDir, [pod('critical', 2_000_001_000), pod('regular')]);
    await expect.poll(() => valueOf(manager()), { timeout: 10_000 }).toBe('{"running":"watching"}');
    expect(await bus.waitFor('logind.reloaded')).toMatchObject({ inhibitDelayMaxUSec: 20_000_000 });
    expect(await bus.waitFor('inhibitor.taken')).toMatchObject({ who: 'kubelet', mode: 'delay' });
    const client = await connectBus(bus.address, { uid });
    await client.call({ destination: 'org.freedesktop.login1', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PowerOff', signature: 'b', body: [false] });
    client.close();
    const poweroff = await bus.waitFor('poweroff', 15_000);
    const prepare = await bus.waitFor('shutdown.prepare');
    expect(poweroff).toMatchObject({ timedOut: false });
    // Two pods of 1 s each, one after the other.
    expect(poweroff.wallMs - prepare.wallMs).toBeGreaterThanOrEqual(1_900);
    expect(poweroff.wallMs - prepare.wallMs).toBeLessThan(5_000);
    expect(log.map((e) => e.what)).toEqual([
      'nodeStatus shuttingDown=true', 'syncLoop shuttingDown=true',
      'kill regular grace=10', 'regular stopped', 'kill critical grace=10', 'critical stopped',
    ]);
    expect(valueOf(manager())).toBe('{"running":"shutDown"}');
  });

  it('logs once and goes on without graceful shutdown when there is no system bus at start-up', async () => {
    bus = await startPrivateBus({ withStandin: false });
    // The actors' timers are fake: a retry, had one been scheduled, is run by the advance below.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { manager, lines, connects } = run(`unix:path=${bus.dir}/none.sock`, bus.confDir, []);
    await expect.poll(() => valueOf(manager()), { timeout: 10_000 }).toBe('{"running":"unavailable"}');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * DBUS_RECONNECT_PERIOD_MS);
    expect(connects.count).toBe(1);
    expect(lines.filter((l) => l.msg === 'Failed to start node shutdown manager')).toHaveLength(1);
    expect(lines.filter((l) => l.level as number >= 50)).toHaveLength(1);
  });
});
