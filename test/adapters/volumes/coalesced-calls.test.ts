import { describe, expect, it } from 'vitest';
import { coalescedCalls, type ItemOutcome } from '../../../src/adapters/volumes/coalesced-calls.js';

/** A runAll whose calls the test ends one by one, recording what each was given. */
function controlledRuns() {
  const calls: { items: readonly string[]; end: (outcomes: ItemOutcome[] | Error) => void }[] = [];
  const runAll = (items: readonly string[]) => new Promise<readonly ItemOutcome[]>((resolve, reject) => {
    calls.push({ items, end: (outcomes) => (outcomes instanceof Error ? reject(outcomes) : resolve(outcomes)) });
  });
  return { calls, call: coalescedCalls(runAll) };
}

const settled = (p: Promise<void>) => p.then(() => 'done', (e: Error) => `failed: ${e.message}`);

describe('coalescedCalls', () => {
  it('starts a request at once when nothing runs', async () => {
    const { calls, call } = controlledRuns();
    const a = settled(call('a'));
    expect(calls.map((c) => c.items)).toEqual([['a']]);
    calls[0]!.end([undefined]);
    expect(await a).toBe('done');
  });

  it('keeps what arrives while a call runs for one next call, in arrival order', async () => {
    const { calls, call } = controlledRuns();
    const all = ['a', 'b', 'c', 'd'].map((item) => settled(call(item)));
    expect(calls.map((c) => c.items)).toEqual([['a']]);
    calls[0]!.end([undefined]);
    await expect.poll(() => calls.map((c) => c.items)).toEqual([['a'], ['b', 'c', 'd']]);
    calls[1]!.end([undefined, undefined, undefined]);
    expect(await Promise.all(all)).toEqual(['done', 'done', 'done', 'done']);
  });

  it('fails only the items whose outcome is an error', async () => {
    const { calls, call } = controlledRuns();
    const first = settled(call('first'));
    const rest = ['b', 'c'].map((item) => settled(call(item)));
    calls[0]!.end([undefined]);
    await expect.poll(() => calls.length).toBe(2);
    calls[1]!.end([new Error('b is wrong'), undefined]);
    expect(await first).toBe('done');
    expect(await Promise.all(rest)).toEqual(['failed: b is wrong', 'done']);
  });

  it('fails every item of a call that throws, and goes on with the next', async () => {
    const { calls, call } = controlledRuns();
    const a = settled(call('a'));
    const b = settled(call('b'));
    calls[0]!.end(new Error('the helper died'));
    expect(await a).toBe('failed: the helper died');
    await expect.poll(() => calls.map((c) => c.items)).toEqual([['a'], ['b']]);
    calls[1]!.end([undefined]);
    expect(await b).toBe('done');
  });

  it('never adds a request to a call already running', async () => {
    const { calls, call } = controlledRuns();
    void settled(call('a'));
    void settled(call('b'));
    calls[0]!.end([undefined]);
    await expect.poll(() => calls.length).toBe(2);
    void settled(call('c'));
    expect(calls.map((c) => c.items)).toEqual([['a'], ['b']]);
    calls[1]!.end([undefined]);
    await expect.poll(() => calls.map((c) => c.items)).toEqual([['a'], ['b'], ['c']]);
  });
});
