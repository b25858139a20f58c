import { describe, expect, it } from 'vitest';
import { hasLargePayloadKeys, largePayloadFiles, turnIfLarge, turnIfLargeKeys } from '../../../src/adapters/volumes/large-payload.js';

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

/** Whether an immediate queued before `step` began ran before `step` ended: the event loop turned. */
async function turnedDuring(step: () => Promise<void>): Promise<boolean> {
  let ran = false;
  setImmediate(() => (ran = true));
  await step();
  return ran;
}

describe('large payloads', () => {
  it('counts a record as large past largePayloadFiles own keys', () => {
    expect(hasLargePayloadKeys(keys(largePayloadFiles))).toBe(false);
    expect(hasLargePayloadKeys(keys(largePayloadFiles + 1))).toBe(true);
    expect(hasLargePayloadKeys(undefined)).toBe(false);
    expect(hasLargePayloadKeys(Object.create(keys(largePayloadFiles + 1)) as object)).toBe(false);
  });

  it('waits for a turn of the event loop before the next step of a large payload, not of a small one', async () => {
    expect(await turnedDuring(() => turnIfLarge(largePayloadFiles + 1))).toBe(true);
    expect(await turnedDuring(() => turnIfLarge(3))).toBe(false);
    expect(await turnedDuring(() => turnIfLargeKeys(undefined, keys(largePayloadFiles + 1)))).toBe(true);
    expect(await turnedDuring(() => turnIfLargeKeys(keys(2), undefined))).toBe(false);
  });
});
