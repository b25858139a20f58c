import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../../../src/adapters/embedded-runtime/state/keyed-mutex.js';

/**
 * Suspends the work for one turn of the event loop: every promise callback already queued (where a
 * mutex that let the next work in would start it) runs first. No timer: nothing here waits on time.
 */
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('KeyedMutex', () => {
  it('runs work on one key one at a time, in call order, even when one fails', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const a = mutex.run('k', async () => { order.push('a+'); await tick(); order.push('a-'); throw new Error('a failed'); });
    const b = mutex.run('k', async () => { order.push('b+'); await tick(); order.push('b-'); return 'b'; });
    await expect(a).rejects.toThrow('a failed');
    await expect(b).resolves.toBe('b');
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-']);
  });

  it('lets different keys overlap', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    await Promise.all([
      mutex.run('x', async () => { order.push('x+'); await tick(); order.push('x-'); }),
      mutex.run('y', async () => { order.push('y+'); await tick(); order.push('y-'); }),
    ]);
    expect(order.slice(0, 2).sort()).toEqual(['x+', 'y+']);
  });
});
