import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock, type AnyActorRef } from 'xstate';
import { migrateConfig, NODE_SHUTDOWN_MESSAGE, type ShutdownPod } from '../../src/domain/node-shutdown/shutdown-groups.js';
import {
  nodeShutdownMachine,
  type NodeShutdownChangedEvent,
  type NodeShutdownEmitted,
  type NodeShutdownEvent,
  type WatchShutdownCommand,
  type WatchShutdownInput,
} from '../../src/machines/node-shutdown.machine.js';
import type { PodEvictRequestedEvent } from '../../src/machines/sync-loop.machine.js';
import { settle } from '../support/settle.js';

const CRITICAL = 2_000_001_000;

interface World {
  pods: ShutdownPod[];
  /** Seconds each pod takes to stop, by uid (default: at once); absent from the map and `hang`: never. */
  stopsAfterS?: Record<string, number>;
  hang?: string[];
  /** The watch's first start fails. */
  noLogind?: boolean;
}

function start(world: World) {
  const clock = new SimulatedClock();
  const log: string[] = [];
  const at = () => `${clock.now() / 1000}s`;
  let sendBack: ((e: NodeShutdownEvent) => void) | null = null;
  let watchInput: WatchShutdownInput | null = null;
  const machine = nodeShutdownMachine.provide({
    actors: {
      watchShutdown: fromCallback<WatchShutdownCommand, WatchShutdownInput>(({ input, sendBack: back, receive }) => {
        watchInput = input;
        sendBack = back as (e: NodeShutdownEvent) => void;
        receive((c) => log.push(`${at()} ${c.type}`));
        queueMicrotask(() => back(world.noLogind
          ? { type: 'shutdown.watch.failed', error: { code: 'KLT_ERR_DBUS_UNAVAILABLE', message: 'no bus', retryable: false } }
          : { type: 'shutdown.watch.started', inhibitDelayMs: 20_000 }));
      }),
      listShutdownPods: fromPromise<ShutdownPod[], Record<string, never>>(async () => world.pods),
    },
  });
  const peer = (id: string) => fromCallback<PodEvictRequestedEvent | NodeShutdownChangedEvent>(({ receive, system }) => {
    receive((event) => {
      if (event.type === 'node.shutdown.changed') {
        log.push(`${at()} ${id} shuttingDown=${event.shuttingDown}`);
        return;
      }
      log.push(`${at()} kill ${event.podUid} grace=${event.gracePeriodSeconds} ${event.reason} "${event.message}" ${event.condition?.type}/${event.condition?.reason} by ${event.requester}`);
      if (world.hang?.includes(event.podUid)) return;
      const answer = () => (system.get('nodeShutdown') as AnyActorRef).send({ type: 'pod.eviction.finished', podUid: event.podUid, evicted: true });
      const after = world.stopsAfterS?.[event.podUid];
      if (after === undefined) queueMicrotask(answer);
      else clock.setTimeout(answer, after * 1000);
    });
  });
  const parent = createMachine({
    invoke: [
      { id: 'nodeShutdown', systemId: 'nodeShutdown', src: machine, input: { nodeName: 'n1', classes: migrateConfig(20, 10) } },
      { id: 'syncLoop', systemId: 'syncLoop', src: peer('syncLoop') },
      { id: 'nodeStatus', systemId: 'nodeStatus', src: peer('nodeStatus') },
    ],
  });
  const actor = createActor(parent, { clock });
  actor.start();
  const manager = () => actor.getSnapshot().children.nodeShutdown!;
  const emitted: string[] = [];
  manager().on('node.shutdown.detected', (e: NodeShutdownEmitted) => emitted.push(`${e.nodeName}: ${e.message}`));
  const tick = async (ms: number) => {
    clock.increment(ms);
    await settle(3);
  };
  const signal = async (shuttingDown: boolean) => {
    sendBack!({ type: 'shutdown.prepare.signalled', shuttingDown });
    await settle(3);
  };
  return { log, manager, tick, signal, emitted, watchInput: () => watchInput };
}

const stateOf = (m: { getSnapshot(): { value: unknown } }) => JSON.stringify(m.getSnapshot().value);

describe('nodeShutdownMachine', () => {
  it('starts watching only once the runtime is up, asking logind for the whole period', async () => {
    const { manager, watchInput } = start({ pods: [] });
    await settle();
    expect(stateOf(manager())).toBe('"waitingForRuntime"');
    expect(watchInput()).toBeNull();
    manager().send({ type: 'runtime.up' });
    await settle(2);
    expect(watchInput()).toEqual({ periodRequestedMs: 20_000 });
    expect(stateOf(manager())).toBe('{"running":"watching"}');
  });

  it('goes on without graceful shutdown when logind is absent at start-up', async () => {
    const { manager, log } = start({ pods: [], noLogind: true });
    manager().send({ type: 'runtime.up' });
    await settle(2);
    expect(stateOf(manager())).toBe('{"running":"unavailable"}');
    expect(log).toEqual([]);
  });

  it('marks the node shutting down, kills regular pods then critical pods with their shares, then releases the lock', async () => {
    const pods = [{ uid: 'critical', priority: CRITICAL, terminationGracePeriodSeconds: 30 }, { uid: 'regular', terminationGracePeriodSeconds: 30 }];
    const { manager, log, tick, signal, emitted } = start({ pods, stopsAfterS: { regular: 4, critical: 2 } });
    manager().send({ type: 'runtime.up' });
    await settle(2);
    await signal(true);
    await tick(4_000);
    await tick(2_000);
    const by = 'DisruptionTarget/TerminationByKubelet by nodeShutdown';
    expect(log).toEqual([
      '0s nodeStatus shuttingDown=true',
      '0s syncLoop shuttingDown=true',
      `0s kill regular grace=10 Terminated "${NODE_SHUTDOWN_MESSAGE}" ${by}`,
      `4s kill critical grace=10 Terminated "${NODE_SHUTDOWN_MESSAGE}" ${by}`,
      '6s shutdown.lock.release',
    ]);
    expect(emitted).toEqual(['n1: Shutdown manager detected shutdown event']);
    expect(stateOf(manager())).toBe('{"running":"shutDown"}');
  });

  it('moves to the next class after the class\'s grace period when a pod does not stop', async () => {
    const { manager, log, tick, signal } = start({ pods: [{ uid: 'stuck' }, { uid: 'critical', priority: CRITICAL }], hang: ['stuck'] });
    manager().send({ type: 'runtime.up' });
    await settle(2);
    await signal(true);
    await tick(9_999);
    expect(log.filter((l) => l.includes('kill'))).toHaveLength(1);
    await tick(1);
    expect(log.slice(-2)).toEqual([expect.stringMatching(/^10s kill critical grace=10 /), '10s shutdown.lock.release']);
  });

  it('skips empty classes and releases at once when there are no pods', async () => {
    const { manager, log, signal } = start({ pods: [] });
    manager().send({ type: 'runtime.up' });
    await settle(2);
    await signal(true);
    expect(log).toEqual(['0s nodeStatus shuttingDown=true', '0s syncLoop shuttingDown=true', '0s shutdown.lock.release']);
  });

  it('is ready again and takes the lock again when the shutdown is cancelled, even while pods are being stopped', async () => {
    const { manager, log, tick, signal, emitted } = start({ pods: [{ uid: 'regular' }], stopsAfterS: { regular: 3 } });
    manager().send({ type: 'runtime.up' });
    await settle(2);
    await signal(true);
    await signal(false);
    expect(stateOf(manager())).toBe('{"running":{"shuttingDown":"killing"}}');
    await tick(3_000);
    expect(log.slice(-4)).toEqual(['3s shutdown.lock.release', '3s nodeStatus shuttingDown=false', '3s syncLoop shuttingDown=false', '3s shutdown.lock.acquire']);
    expect(emitted.at(-1)).toBe('n1: Shutdown manager detected shutdown cancellation');
    expect(stateOf(manager())).toBe('{"running":"watching"}');
  });
});
