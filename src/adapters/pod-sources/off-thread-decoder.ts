/**
 * Large manifests are decoded on a worker thread, so the kubelet's event loop (its timers, probes,
 * servers and every other pod) runs on meanwhile. A manifest near the 10 MiB limit takes seconds to
 * parse and validate (docs/FINDINGS.md); Go does it on a goroutine of its own and holds nothing
 * else up.
 *
 * Small manifests, nearly all of them, are decoded inline: a worker costs tens of milliseconds to
 * start, far more than they take. One worker per large manifest, ended when it answers; the file
 * source caches what each file gave, so a large file is decoded again only when it changes.
 *
 * The worker runs the built module next to this one (`decode-manifest-worker.js`), so this decoder
 * is for the built daemon; tests of the sources' logic use decodeManifestInline.
 */
import { oneShotWorker } from '../workers/one-shot-worker.js';
import { decodeManifestText, type DecodedManifest, type ManifestDecoder } from './decode-manifest.js';

/** Manifests up to this many characters are decoded inline (a typical pod is 1–10 KiB). */
export const INLINE_DECODE_MAX_CHARS = 256 * 1024;

const WORKER_URL = new URL('./decode-manifest-worker.js', import.meta.url);

const decodeOnWorker = (file: string, text: string, nodeName: string) =>
  oneShotWorker<DecodedManifest>(WORKER_URL, { file, text, nodeName }, (why) => ({ origin: file, reason: `can't decode manifest: its decoder ${why}` }));

export const decodeManifestOffThread: ManifestDecoder = async (file, text, nodeName) =>
  (text.length <= INLINE_DECODE_MAX_CHARS ? decodeManifestText(file, text, nodeName) : decodeOnWorker(file, text, nodeName));
