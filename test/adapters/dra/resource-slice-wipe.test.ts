import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { wipeNodeResourceSlices, type SliceWipeDeps } from '../../../src/adapters/dra/resource-slice-wipe.js';
import { sliceWipeWaitMs } from '../../../src/domain/dra/slice-wipe.js';
import { KubeletError } from '../../../src/domain/errors.js';

const notFound = (what: string) => new KubeletError('KLT_ERR_API_NOT_FOUND', `${what} not found`);

function world(answers: { node: (Error | null)[]; delete: (Error | null)[] }) {
  const calls: string[] = [];
  const waits: number[] = [];
  const deps: SliceWipeDeps = {
    nodeName: 'n1',
    logger: pino({ level: 'silent' }),
    random: () => 0.5,
    sleep: async (ms) => void waits.push(ms),
    api: {
      getNode: async () => {
        calls.push('getNode');
        const err = answers.node.shift();
        if (err) throw err;
        return {};
      },
      deleteResourceSlices: async (selector) => {
        calls.push(`delete ${selector}`);
        const err = answers.delete.shift();
        if (err) throw err;
      },
      getResourceClaim: async () => ({ metadata: { name: 'unused' } }),
    },
  };
  return { calls, waits, deps };
}

describe('wipeNodeResourceSlices', () => {
  it('waits for the Node, then deletes every slice naming it, retrying a refused delete with Go\'s back-off', async () => {
    const w = world({ node: [notFound('nodes "n1"'), null, null], delete: [new KubeletError('KLT_ERR_API_FAILED', 'forbidden'), null] });
    await wipeNodeResourceSlices(w.deps, new AbortController().signal);
    expect(w.calls).toEqual(['getNode', 'getNode', 'delete spec.nodeName=n1', 'getNode', 'delete spec.nodeName=n1']);
    // 1 s then 2 s, each with 20% jitter at its half.
    expect(w.waits).toEqual([1100, 2200]);
  });

  it('is done when there is nothing to delete, and stops when asked', async () => {
    const w = world({ node: [], delete: [notFound('resourceslices')] });
    await wipeNodeResourceSlices(w.deps, new AbortController().signal);
    expect(w.calls).toEqual(['getNode', 'delete spec.nodeName=n1']);
    const stopped = world({ node: [], delete: [] });
    const abort = new AbortController();
    abort.abort();
    await wipeNodeResourceSlices(stopped.deps, abort.signal);
    expect(stopped.calls).toEqual([]);
  });

  it('deletes one driver\'s slices naming the node, keys in Go\'s order, when given the driver', async () => {
    const w = world({ node: [], delete: [] });
    await wipeNodeResourceSlices(w.deps, new AbortController().signal, 'gpu.example.com');
    expect(w.calls).toEqual(['getNode', 'delete spec.driver=gpu.example.com,spec.nodeName=n1']);
  });

  it('waits 1 s doubling up to 5 min, 20% jitter on top', () => {
    expect([1, 2, 3, 9, 10, 50].map((t) => sliceWipeWaitMs(t, 0))).toEqual([1000, 2000, 4000, 256_000, 300_000, 300_000]);
    expect(sliceWipeWaitMs(10, 0.999)).toBe(359_940);
  });
});
