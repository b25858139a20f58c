import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runSourceLoop, WATCH_DEBOUNCE_MS } from '../../../src/actors/pod-config/source-actor.js';
import type { SourceRead } from '../../../src/ports/pod-sources.js';
import type { PodSourceEvent } from '../../../src/machines/pod-config.machine.js';
import type { Pod } from '../../../src/domain/pod/types.js';
import { settle } from '../../support/settle.js';

const logger = pino({ level: 'silent' });
const flush = () => settle();
const pod = (uid: string): Pod => ({ metadata: { name: uid, uid }, spec: { containers: [] } });

/**
 * A source loop over a scripted reader: each read answers the next scripted result (or the last
 * one again), and can be held open to test overlapping triggers.
 */
function harness(opts: { script?: SourceRead[]; withWatch?: boolean; periodMs?: number } = {}) {
  const clock = new SimulatedClock();
  const events: PodSourceEvent[] = [];
  const script = [...(opts.script ?? [{ kind: 'snapshot', pods: [pod('a')], rejected: [] }])];
  let reads = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let hold: Promise<void> | null = null;
  let watchers = 0;
  let closed = 0;
  let emit: ((e: 'changed' | 'lost') => void) | null = null;
  const stop = runSourceLoop({
    source: 'file',
    periodMs: opts.periodMs ?? 20_000,
    clock,
    logger,
    sendBack: (e) => events.push(e),
    read: async () => {
      reads++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (hold) await hold;
      inFlight--;
      const next = script.length > 1 ? script.shift()! : script[0]!;
      if (next === undefined) throw new Error('no script');
      return next;
    },
    ...(opts.withWatch === false
      ? {}
      : {
          watch: (onEvent: (e: 'changed' | 'lost') => void) => {
            watchers++;
            emit = onEvent;
            return { close: () => { closed++; } };
          },
        }),
  });
  return {
    clock, events, stop,
    get reads() { return reads; },
    get maxInFlight() { return maxInFlight; },
    get watchers() { return watchers; },
    get closed() { return closed; },
    emit: (e: 'changed' | 'lost') => emit?.(e),
    holdReads: () => {
      let release!: () => void;
      hold = new Promise<void>((resolve) => { release = resolve; });
      return () => { hold = null; release(); };
    },
  };
}

describe('runSourceLoop', () => {
  it('reads at start and sends a snapshot stamped with the clock', async () => {
    const h = harness();
    h.clock.set(5_000);
    await flush();
    expect(h.events).toEqual([{ type: 'pod.source.snapshot', source: 'file', pods: [pod('a')], rejected: [], observedAtMs: 5_000 }]);
    h.stop();
  });

  it('does not send a snapshot identical to the last one sent, but does after a failure', async () => {
    const same = { kind: 'snapshot' as const, pods: [pod('a')], rejected: [] };
    const h = harness({ script: [same, same, { kind: 'failed', origin: 'dir', reason: 'gone' }, same, same] });
    await flush();
    for (let i = 0; i < 4; i++) {
      h.clock.increment(20_000);
      await flush();
    }
    expect(h.reads).toBe(5);
    expect(h.events.map((e) => e.type)).toEqual(['pod.source.snapshot', 'pod.source.failed', 'pod.source.snapshot']);
    h.stop();
  });

  it('reads again every period on the injected clock', async () => {
    const h = harness({ periodMs: 20_000 });
    await flush();
    h.clock.increment(19_999);
    await flush();
    expect(h.reads).toBe(1);
    h.clock.increment(1);
    await flush();
    expect(h.reads).toBe(2);
    h.clock.increment(40_000);
    await flush();
    expect(h.reads).toBe(3);
    h.stop();
  });

  it('reads once shortly after a burst of watch events', async () => {
    const h = harness();
    await flush();
    h.emit('changed');
    h.emit('changed');
    h.clock.increment(WATCH_DEBOUNCE_MS - 1);
    h.emit('changed');
    await flush();
    expect(h.reads).toBe(1);
    h.clock.increment(1);
    await flush();
    expect(h.reads).toBe(2);
    h.stop();
  });

  it('watches again with the next read after the watch was lost', async () => {
    const h = harness();
    await flush();
    expect(h.watchers).toBe(1);
    h.emit('lost');
    h.clock.increment(WATCH_DEBOUNCE_MS);
    await flush();
    expect(h.reads).toBe(2); // a lost watch may mean the path changed: read
    expect(h.watchers).toBe(2); // and watch again with that read
    h.clock.increment(20_000);
    await flush();
    expect(h.watchers).toBe(2); // a running watch is kept at polls
    h.stop();
  });

  it('sends failed reads as pod.source.failed and nothing for unchanged ones', async () => {
    const h = harness({
      script: [
        { kind: 'failed', origin: 'http://x/', reason: 'http://x/: 500 Internal Server Error' },
        { kind: 'unchanged' },
      ],
    });
    await flush();
    h.clock.increment(20_000);
    await flush();
    expect(h.events).toEqual([{ type: 'pod.source.failed', source: 'file', origin: 'http://x/', reason: 'http://x/: 500 Internal Server Error', observedAtMs: 0 }]);
    h.stop();
  });

  it('never overlaps reads: a trigger during a read causes one more read after it', async () => {
    const h = harness();
    await flush();
    const release = h.holdReads();
    h.emit('changed');
    h.clock.increment(WATCH_DEBOUNCE_MS); // read 2 starts and hangs
    h.clock.increment(20_000); // the poll finds a read running: one more after it
    h.emit('changed');
    h.clock.increment(WATCH_DEBOUNCE_MS);
    await flush();
    expect(h.reads).toBe(2);
    release();
    await flush();
    await flush();
    expect(h.reads).toBe(3);
    expect(h.maxInFlight).toBe(1);
    h.stop();
  });

  it('turns a reader that throws into a failed read', async () => {
    const clock = new SimulatedClock();
    const events: PodSourceEvent[] = [];
    const stop = runSourceLoop({ source: 'http', periodMs: 1000, clock, logger, sendBack: (e) => events.push(e), read: async () => { throw new Error('kaput'); } });
    await flush();
    expect(events).toEqual([{ type: 'pod.source.failed', source: 'http', origin: 'http', reason: 'kaput', observedAtMs: 0 }]);
    stop();
  });

  it('stops cleanly: closes the watch, reads no more, and drops a read in flight', async () => {
    const h = harness();
    await flush();
    const release = h.holdReads();
    h.clock.increment(20_000);
    h.stop();
    release();
    await flush();
    expect(h.closed).toBe(1);
    expect(h.events).toHaveLength(1);
    h.clock.increment(100_000);
    h.emit('changed');
    h.clock.increment(WATCH_DEBOUNCE_MS);
    await flush();
    expect(h.reads).toBe(2);
    expect(h.events).toHaveLength(1);
  });
});
