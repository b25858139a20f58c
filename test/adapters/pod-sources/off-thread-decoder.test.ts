import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeManifestText } from '../../../src/adapters/pod-sources/decode-manifest.js';
import { INLINE_DECODE_MAX_CHARS } from '../../../src/adapters/pod-sources/off-thread-decoder.js';
import { turnsDuring } from '../../support/event-loop-turns.js';

// The worker runs the built module next to the decoder, so the decoder is taken from dist (built
// before the tests run, as the daemon's tests take the binary).
type OffThread = typeof import('../../../src/adapters/pod-sources/off-thread-decoder.js');
const built = () => import(pathToFileURL(resolve('dist/src/adapters/pod-sources/off-thread-decoder.js')).href) as Promise<OffThread>;

/** A pod manifest with `count` labels, the last one `lastKey` (to make it invalid at will). */
function manifestWithLabels(count: number, lastKey = `k${count - 1}`): string {
  const labels = Array.from({ length: count - 1 }, (_, i) => `    k${i}: v${i}`);
  return [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: large', '  labels:', ...labels, `    ${lastKey}: v`,
    'spec:', '  containers:', '  - name: main', '    image: busybox', '',
  ].join('\n');
}

/**
 * Labels enough for a manifest a fifth over the inline limit (about 19 characters a label): large
 * enough to go to the worker, no larger, as each decode costs seconds of CPU on a busy machine.
 */
const LARGE_LABELS = Math.ceil((INLINE_DECODE_MAX_CHARS * 1.2) / 19);
/** A generous bound for three decodes of that manifest on a loaded 2-core machine. */
const LARGE_DECODE_TIMEOUT_MS = 120_000;

describe('decodeManifestOffThread', () => {
  it('decodes a large manifest as the inline decoder does, while the event loop keeps turning', async () => {
    const { decodeManifestOffThread, INLINE_DECODE_MAX_CHARS } = await built();
    const text = manifestWithLabels(LARGE_LABELS);
    expect(text.length).toBeGreaterThan(INLINE_DECODE_MAX_CHARS);
    const { result, turns } = await turnsDuring(() => decodeManifestOffThread('/m/large.yaml', text, 'node-a'));
    // Inline, the whole decode is one turn: nothing else runs until it ends.
    const inline = await turnsDuring(async () => decodeManifestText('/m/large.yaml', text, 'node-a'));
    expect(result).toEqual(inline.result);
    expect('pod' in result && Object.keys(result.pod.metadata?.labels ?? {})).toHaveLength(LARGE_LABELS);
    expect(inline.turns).toBeLessThanOrEqual(1);
    expect(turns).toBeGreaterThan(10);
  }, LARGE_DECODE_TIMEOUT_MS);

  it('rejects a large invalid manifest with the reason the inline decoder gives, naming the file', async () => {
    const { decodeManifestOffThread } = await built();
    const text = manifestWithLabels(LARGE_LABELS, '"!!bad"');
    expect(text.length).toBeGreaterThan(INLINE_DECODE_MAX_CHARS);
    const result = await decodeManifestOffThread('/m/bad.yaml', text, 'node-a');
    expect(result).toEqual(decodeManifestText('/m/bad.yaml', text, 'node-a'));
    expect(result).toMatchObject({ origin: '/m/bad.yaml', reason: expect.stringContaining('!!bad') });
  }, LARGE_DECODE_TIMEOUT_MS);

  it('decodes a small manifest inline, with the same answer', async () => {
    const { decodeManifestOffThread } = await built();
    const text = manifestWithLabels(3);
    const { result, turns } = await turnsDuring(() => decodeManifestOffThread('/m/small.yaml', text, 'node-a'));
    expect(result).toEqual(decodeManifestText('/m/small.yaml', text, 'node-a'));
    expect(turns).toBeLessThanOrEqual(1);
  });
});
