/**
 * The hostile bench's meter on this very process: the probe loaded as the kubelet would load it,
 * then a window around a synchronous block and an allocation, which it must see.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openWindow } from '../../bench/loop-window.js';

const dir = mkdtempSync(join(tmpdir(), 'kts-loop-window-'));
const socket = join(dir, 'probe.sock');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openWindow', () => {
  it('reports a block of the loop as its longest stall and a held allocation as RSS growth', async () => {
    process.env.KUBELET_BENCH_LOOP_PROBE = socket;
    await import('../../bench/loop-probe.js');
    expect(process.env.KUBELET_BENCH_LOOP_PROBE).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    const close = await openWindow(process.pid, socket);
    const until = Date.now() + 300;
    while (Date.now() < until) { /* the loop held */ }
    const held = Buffer.alloc(96 * 1024 * 1024, 1);
    await new Promise((r) => setTimeout(r, 50));
    const figures = await close();
    expect(held.length).toBeGreaterThan(0);
    expect(figures.maxStallMs).toBeGreaterThanOrEqual(250);
    expect(figures.rssGrowthMiB).toBeGreaterThanOrEqual(90);
  });
});
