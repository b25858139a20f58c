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
