/**
 * Building and writing a payload costs CPU in proportion to its files (decoding, checking paths,
 * hashing, listing modes), and each step runs without a break: for tens of thousands of keys the
 * steps together hold the event loop for a noticeable time (docs/FINDINGS.md). Past a size, each
 * step waits for a turn of the loop first, so healthz, the Lease and the API client get theirs in
 * between; a small payload goes straight through, as a turn can be long in a burst of pods.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A payload of more files than this is large. */
export const largePayloadFiles = 1000;

/** Waits for a turn of the event loop when `files` make a large payload. */
export async function turnIfLarge(files: number): Promise<void> {
  if (files > largePayloadFiles) await nextTurn();
}

/** Whether a record has the keys of a large payload (counting stops there: listing 40,000 keys is a step of its own). */
export function hasLargePayloadKeys(record: object | undefined): boolean {
  let keys = 0;
  for (const key in record) if (Object.hasOwn(record!, key) && ++keys > largePayloadFiles) return true;
  return false;
}

/** Waits for a turn of the event loop when any of `records` has the keys of a large payload. */
export async function turnIfLargeKeys(...records: (object | undefined)[]): Promise<void> {
  if (records.some(hasLargePayloadKeys)) await nextTurn();
}
