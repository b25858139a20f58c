import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readWatchEvents } from '../../../src/adapters/apiserver/watch-stream.js';

function watch() {
  const stream = new PassThrough();
  const events: [string, unknown][] = [];
  const ends: (Error | null)[] = [];
  readWatchEvents(stream, { onEvent: (t, o) => void events.push([t, o]), onEnd: (e) => void ends.push(e) });
  const settled = new Promise((r) => stream.on('close', r));
  return { stream, events, ends, settled };
}

/** Generous for a loaded 2-core machine: a linear decode of 16 MiB takes a fraction of it, the quadratic one minutes. */
const BIG_EVENT_BOUND_MS = 10_000;
/** HTTP/2's default largest frame (SETTINGS_MAX_FRAME_SIZE): the chunks a watch arrives in. */
const FRAME = 16 * 1024;
const MiB = 1024 * 1024;

describe('readWatchEvents', () => {
  it('hands on each event as its line completes, however the chunks cut the lines', async () => {
    const w = watch();
    const text = '{"type":"ADDED","object":{"n":1}}\n{"type":"MODIFIED","object":{"n":"é"}}\n{"type":"BOOKMARK","object":{}}\n';
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 7) w.stream.write(bytes.subarray(i, i + 7));
    await expect.poll(() => w.events).toEqual([['ADDED', { n: 1 }], ['MODIFIED', { n: 'é' }], ['BOOKMARK', {}]]);
    expect(w.ends).toEqual([]);
    w.stream.end();
    await w.settled;
    expect(w.ends).toEqual([null]);
  });

  it('decodes several events in one chunk, and a character whose UTF-8 bytes are cut between chunks', async () => {
    const w = watch();
    w.stream.write('{"type":"ADDED","object":1}\n{"type":"MODIFIED","object":2}\n{"type":"DELETED","object":3}\n');
    const cut = Buffer.from('{"type":"ADDED","object":"a😀é"}\n');
    const emoji = cut.indexOf(Buffer.from('😀'));
    // One byte at a time through the emoji and the é: every cut lands inside a character.
    w.stream.write(cut.subarray(0, emoji + 1));
    for (let i = emoji + 1; i < cut.length; i++) w.stream.write(cut.subarray(i, i + 1));
    await expect.poll(() => w.events).toEqual([['ADDED', 1], ['MODIFIED', 2], ['DELETED', 3], ['ADDED', 'a😀é']]);
    w.stream.end();
    await w.settled;
  });

  it('decodes one 16 MiB event sent in 16 KiB chunks in time linear in its size', async () => {
    const w = watch();
    const filler = 'x'.repeat(16 * MiB);
    const event = Buffer.from(`{"type":"MODIFIED","object":{"data":"${filler}"}}\n{"type":"BOOKMARK","object":{}}\n`);
    const started = performance.now();
    for (let i = 0; i < event.length; i += FRAME) w.stream.write(event.subarray(i, i + FRAME));
    await expect.poll(() => w.events.length, { timeout: BIG_EVENT_BOUND_MS }).toBe(2);
    expect(performance.now() - started).toBeLessThan(BIG_EVENT_BOUND_MS);
    expect((w.events[0]?.[1] as { data: string }).data).toHaveLength(16 * MiB);
    expect(w.events[1]).toEqual(['BOOKMARK', {}]);
    w.stream.end();
    await w.settled;
  }, 4 * BIG_EVENT_BOUND_MS);

  it('takes a last event without its newline when the server closes the answer', async () => {
    const w = watch();
    w.stream.end('{"type":"DELETED","object":{}}');
    await w.settled;
    expect(w.events).toEqual([['DELETED', {}]]);
    expect(w.ends).toEqual([null]);
  });

  it('ends with an error, once, on a line that is not a watch event', async () => {
    const w = watch();
    w.stream.write('{"type":"ADDED","object":{}}\n<html>\n{"type":"ADDED","object":{}}\n');
    await w.settled;
    expect(w.events).toHaveLength(1);
    expect(w.ends).toHaveLength(1);
    expect(w.ends[0]?.message).toMatch(/not a JSON event: <html>/);
    await expect(watchOf('{"object":{}}\n')).resolves.toMatch(/an event without a type/);
  });

  it('ends with an error when the connection fails or closes before the answer ended', async () => {
    const failed = watch();
    failed.stream.destroy(new Error('read ECONNRESET'));
    await failed.settled;
    expect(failed.ends.map((e) => e?.message)).toEqual(['read ECONNRESET']);
    const cut = watch();
    cut.stream.destroy();
    await cut.settled;
    expect(cut.ends.map((e) => e?.message)).toEqual(['watch: the connection closed before the answer ended']);
  });
});

async function watchOf(text: string): Promise<string | undefined> {
  const w = watch();
  w.stream.write(text);
  await w.settled;
  return w.ends[0]?.message;
}
