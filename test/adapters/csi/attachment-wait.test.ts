import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { waitForAttachment } from '../../../src/adapters/csi/attachment-wait.js';
import type { VolumeAttachmentObject } from '../../../src/domain/csi/attachment.js';
import type { Clock } from '../../../src/ports/clock.js';

function clockOf(sim: SimulatedClock): Clock {
  return { now: () => sim.now(), setTimeout: (fn, ms) => sim.setTimeout(fn, ms), clearTimeout: (id) => sim.clearTimeout(id as number) };
}

/** Lets the awaited GET and the loop run, then moves the clock on. */
async function advance(sim: SimulatedClock, ms: number): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  sim.increment(ms);
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('waiting for a VolumeAttachment', () => {
  it('reads it again every second until attached, and answers its metadata', async () => {
    const sim = new SimulatedClock();
    const answers: (VolumeAttachmentObject | undefined)[] = [{ status: { attached: false } }, { status: { attached: false } }, { status: { attached: true, attachmentMetadata: { lun: '3' } } }];
    const names: string[] = [];
    const wait = waitForAttachment({ api: { getVolumeAttachment: async (name) => { names.push(name); return answers.shift(); } }, clock: clockOf(sim) }, 'h', 'csi-abc');
    await advance(sim, 1000);
    await advance(sim, 1000);
    await expect(wait).resolves.toEqual({ lun: '3' });
    expect(names).toEqual(['csi-abc', 'csi-abc', 'csi-abc']);
  });

  it('fails at once on a GET error or a missing object, in Go\'s words', async () => {
    const clock = clockOf(new SimulatedClock());
    await expect(waitForAttachment({ api: { getVolumeAttachment: async () => { throw new Error('connection refused'); } }, clock }, 'h', 'csi-abc'))
      .rejects.toThrow('volume h has GET error for volume attachment csi-abc: connection refused');
    await expect(waitForAttachment({ api: { getVolumeAttachment: async () => undefined }, clock }, 'h', 'csi-abc'))
      .rejects.toThrow('volume h has GET error for volume attachment csi-abc: volumeattachments.storage.k8s.io "csi-abc" not found');
  });

  it('fails on an attach error, and after the timeout', async () => {
    const sim = new SimulatedClock();
    await expect(waitForAttachment({ api: { getVolumeAttachment: async () => ({ status: { attachError: { message: 'disk busy' } } }) }, clock: clockOf(sim) }, 'h', 'x'))
      .rejects.toThrow('disk busy');
    const wait = waitForAttachment({ api: { getVolumeAttachment: async () => ({ status: { attached: false } }) }, clock: clockOf(sim), timeoutMs: 3000 }, 'h', 'x');
    const outcome = wait.catch((e: Error) => e.message);
    for (let i = 0; i < 4; i++) await advance(sim, 1000);
    expect(await outcome).toBe('attachment timeout for volume h');
  });
});
