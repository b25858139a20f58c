/**
 * A bus that sends what no dbus-daemon would pass on (test/support/fake-bus.ts): each message is
 * refused by closing the connection with an error naming what is wrong, within a bound, or read
 * within bounds of CPU, event-loop stall and memory. The bounds are generous for a loaded 2-core
 * machine; they are not performance figures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectBus, type DbusConnection } from '../../../src/adapters/dbus/connection.js';
import type { DbusValue } from '../../../src/adapters/dbus/marshal.js';
import { encodeMessage } from '../../../src/adapters/dbus/message.js';
import { startFakeBus, type FakeBus } from '../../support/fake-bus.js';

/** How long a refused message may take to close the connection (milliseconds when the machine is quiet). */
const CLOSE_BOUND_MS = 10_000;
/**
 * CPU, longest event-loop stall and RSS growth allowed for reading one 32 MiB signal. A stall is
 * counted in CPU time (the most CPU spent between two ticks of a timer), not wall time: on two
 * cores under load 20 a process waits seconds for its turn with nothing running in it.
 */
const BIG_SIGNAL_CPU_BOUND_MS = 3_000;
const BIG_SIGNAL_STALL_BOUND_MS = 2_000;
/** How long the whole signal may take to arrive and be read, a deadline: on a quiet machine it takes a second or two. */
const BIG_SIGNAL_DEADLINE_MS = 60_000;
const BIG_SIGNAL_RSS_BOUND = 512 * 1024 * 1024;
/** dbus-daemon's max_message_size on the system bus (its system.conf default). */
const SYSTEM_BUS_MAX_MESSAGE = 32 * 1024 * 1024;

const uid = process.getuid?.() ?? 0;
const MATCH = { path: '/p', interface: 'a.B', member: 'S' };
let bus: FakeBus | null = null;
let conn: DbusConnection | null = null;

afterEach(async () => {
  conn?.close();
  conn = null;
  await bus?.stop();
  bus = null;
});

/** A client subscribed to MATCH on a fake bus; `signals` collects the bodies handed on. */
async function subscribed(): Promise<{ bus: FakeBus; conn: DbusConnection; signals: DbusValue[][]; closed: Promise<Error | undefined> }> {
  bus = await startFakeBus();
  conn = await connectBus(bus.address, { uid });
  const signals: DbusValue[][] = [];
  await conn.onSignal(MATCH, (body) => signals.push(body));
  const c = conn;
  const closed = new Promise<Error | undefined>((resolve) => c.onClose(resolve));
  return { bus, conn, signals, closed };
}

/** A signal on MATCH whose header says `signature` and whose body is `body`, as raw bytes. */
function rawSignal(signature: string, body: Buffer): Buffer {
  const head = encodeMessage({ kind: 'signal', serial: 7, sender: ':1.9', ...MATCH, signature });
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** The connection's end, or a failure once CLOSE_BOUND_MS passed (a deadline: the close normally comes first). */
function closedWithin(closed: Promise<Error | undefined>): Promise<Error | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the connection was not closed within ${CLOSE_BOUND_MS} ms`)), CLOSE_BOUND_MS); // a deadline, not a wait: the close normally comes first
    closed.then((err) => { clearTimeout(timer); resolve(err); }, reject);
  });
}

describe('a D-Bus peer that misbehaves', () => {
  it('an array of empty structs a() (elements of no width): refused, not read forever', async () => {
    const { bus, closed, signals } = await subscribed();
    // Eight bytes announced for the array, after its length and the struct's alignment.
    const body = Buffer.concat([Buffer.from([8, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(8)]);
    await bus.send(rawSignal('a()', body));
    expect((await closedWithin(closed))?.message).toMatch(/empty struct "\(\)"/);
    expect(signals).toEqual([]);
  });

  it('a message announcing a 4 GiB body: refused once its fixed header is in, nothing buffered', async () => {
    const { bus, closed } = await subscribed();
    const header = Buffer.from(rawSignal('s', Buffer.alloc(0)));
    header.writeUInt32LE(0xffff_ffff, 4);
    // The header and a little of the body: the rest never comes.
    await bus.send(Buffer.concat([header, Buffer.alloc(4096)]));
    expect((await closedWithin(closed))?.message).toMatch(/announced a message of 4\d{9} bytes \(body 4294967295, header fields \d+\), over the 134217728-byte limit/);
  });

  it('signatures nested past the specification: 33 arrays, and variants 65 deep inside a short signature', async () => {
    const arrays = await subscribed();
    await arrays.bus.send(rawSignal(`${'a'.repeat(33)}y`, Buffer.alloc(4)));
    expect((await closedWithin(arrays.closed))?.message).toMatch(/nests arrays deeper than the specification's 32/);
    conn?.close();
    await bus?.stop();

    const variants = await subscribed();
    let body = Buffer.from([1, 0x79, 0, 7]); // v holding y = 7
    for (let i = 0; i < 65; i++) body = Buffer.concat([Buffer.from([1, 0x76, 0]), body]);
    await variants.bus.send(rawSignal('v', body));
    expect((await closedWithin(variants.closed))?.message).toMatch(/nests containers deeper than the specification's 64/);
    expect(variants.signals).toEqual([]);
  }, 3 * CLOSE_BOUND_MS);

  it('one 32 MiB signal (the most the system bus passes) in 16 KiB pieces: read within bounds of CPU, event-loop stall and memory', async () => {
    const { bus, signals } = await subscribed();
    const text = 'x'.repeat(SYSTEM_BUS_MAX_MESSAGE - 1024);
    const signal = encodeMessage({ kind: 'signal', serial: 7, sender: ':1.9', ...MATCH, signature: 's', body: [text] });
    const rss0 = process.memoryUsage().rss;
    let rssPeak = rss0;
    const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
    const cpu0 = cpuNow();
    let lastTick = cpu0;
    let longestTurn = 0;
    const sampler = setInterval(() => {
      const now = cpuNow();
      longestTurn = Math.max(longestTurn, now - lastTick);
      lastTick = now;
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 5);
    try {
      await bus.send(signal, 16 * 1024);
      await expect.poll(() => signals.length, { timeout: BIG_SIGNAL_DEADLINE_MS }).toBe(1);
    } finally {
      clearInterval(sampler);
    }
    expect(cpuNow() - cpu0).toBeLessThan(BIG_SIGNAL_CPU_BOUND_MS);
    expect(longestTurn).toBeLessThan(BIG_SIGNAL_STALL_BOUND_MS);
    expect(rssPeak - rss0).toBeLessThan(BIG_SIGNAL_RSS_BOUND);
    expect(signals[0]?.[0]).toBe(text);
  }, 2 * BIG_SIGNAL_DEADLINE_MS);
});
