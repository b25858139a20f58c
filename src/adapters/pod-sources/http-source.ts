/**
 * The http source's I/O (Go's pkg/kubelet/config/http.go): GET staticPodURL with
 * staticPodURLHeader (every value of every name), 10 s timeout, body up to 10 MiB.
 * - Not 200, a network error or a timeout: a failed read (the pods fetched before stay, as in Go).
 * - An empty body: an empty snapshot, rejection naming the URL (Go sends an empty SET and errors).
 * - The same body as the last snapshot: `unchanged` (Go short-circuits too).
 * - A Pod, or a PodList (YAML or JSON): a snapshot. One invalid pod fails the whole read, as in Go;
 *   a pod name given twice keeps the first and rejects the later one (`<url> items[i]`).
 */
import { dropDuplicatePods } from '../../domain/pod-config/duplicates.js';
import { decodePodsFromUrl } from '../../domain/pod-config/static-pod.js';
import type { HttpSourceReader, SourceRead } from '../../ports/pod-sources.js';
import { MAX_MANIFEST_BYTES } from './file-source.js';
import { parseManifestText } from './parse-manifest.js';

export const HTTP_SOURCE_TIMEOUT_MS = 10_000;

export function createHttpSourceReader(opts: {
  url: string;
  header: Record<string, string[]>;
  nodeName: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): HttpSourceReader {
  const doFetch = opts.fetch ?? fetch;
  let lastSnapshotBody: string | null = null;

  async function fetchBody(): Promise<{ ok: true; body: string } | { ok: false; reason: string }> {
    const headers = new Headers();
    for (const [name, values] of Object.entries(opts.header)) for (const value of values) headers.append(name, value);
    try {
      const response = await doFetch(opts.url, { headers, signal: AbortSignal.timeout(opts.timeoutMs ?? HTTP_SOURCE_TIMEOUT_MS) });
      const body = await readAtMost(response, MAX_MANIFEST_BYTES);
      if (response.status !== 200) return { ok: false, reason: `${opts.url}: ${response.status} ${response.statusText}`.trimEnd() };
      if (body === null) return { ok: false, reason: `${opts.url}: response over ${MAX_MANIFEST_BYTES} bytes` };
      return { ok: true, body };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
      return { ok: false, reason: `failed to read pods from URL: ${detail}` };
    }
  }

  async function read(): Promise<SourceRead> {
    const fetched = await fetchBody();
    if (!fetched.ok) return { kind: 'failed', origin: opts.url, reason: fetched.reason };
    const { body } = fetched;
    if (body.length === 0) {
      lastSnapshotBody = body;
      return { kind: 'snapshot', pods: [], rejected: [{ origin: opts.url, reason: `zero-length data received from ${opts.url}` }] };
    }
    if (body === lastSnapshotBody) return { kind: 'unchanged' };
    const parsed = parseManifestText(body);
    if (!parsed.ok) return { kind: 'failed', origin: opts.url, reason: `couldn't parse as single or multiple pods: ${parsed.reason}` };
    const decoded = decodePodsFromUrl(parsed.doc, { source: 'http', origin: opts.url, nodeName: opts.nodeName });
    if (!decoded.ok) return { kind: 'failed', origin: opts.url, reason: decoded.reason };
    const entries = decoded.value.map((pod, i) => ({ origin: decoded.value.length > 1 ? `${opts.url} items[${i}]` : opts.url, pod }));
    const { kept, rejected } = dropDuplicatePods(entries);
    lastSnapshotBody = body;
    return { kind: 'snapshot', pods: kept.map((entry) => entry.pod), rejected };
  }

  return { read };
}

/** The body as text, or null past `limit` bytes (the rest is not read). */
async function readAtMost(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
