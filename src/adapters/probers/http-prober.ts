/**
 * The HTTP GET prober (Go: pkg/probe/http). One request per attempt, no keep-alive, no proxy,
 * certificates not verified (Go's probe transport skips verification too):
 * - 200 ≤ status < 300: success; 300 ≤ status < 400: success with a warning (a redirect that was
 *   not followed); anything else: failure, with a message that never contains the body (Go: #99425).
 * - Redirects are followed only to the same host name (any port or scheme), at most 10 times, as Go
 *   does for probes (followNonLocalRedirects=false); a redirect elsewhere ends the attempt on that
 *   3xx response.
 * - The timeout covers the whole attempt, redirects and body included (Go's http.Client.Timeout).
 * - At most 10 KiB of the body is read and kept as output.
 */
import http from 'node:http';
import https from 'node:https';
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';

type HttpTarget = Extract<ProbeTarget, { kind: 'httpGet' }>;

const MAX_BODY_BYTES = 10 * 1024;
const MAX_REDIRECTS = 10;
/** Statuses Go's client follows for a GET (others, such as 300 or 304, are returned as they are). */
const FOLLOWED_REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface Response { status: number; location: string | undefined; body: string }

export async function httpProbe(target: HttpTarget): Promise<ProbeOutcome> {
  let first: URL;
  try {
    first = new URL(target.url);
  } catch (err) {
    // Go: the request could not be built, an error (the attempt counts neither way).
    return { result: 'unknown', output: errorMessage(err) };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), target.timeoutSeconds * 1000);
  let url = first;
  // A Host header set by the probe applies to the first request; Go keeps it across a redirect only
  // when the Location was relative.
  let hostHeader = target.headers['Host']?.[0];
  try {
    for (let redirects = 0; ; redirects++) {
      let response: Response;
      try {
        response = await get(url, target.headers, hostHeader, abort.signal);
      } catch (err) {
        // Go converts every client error (refused, reset, timeout) into a failure, never an error.
        const reason = abort.signal.aborted
          ? `context deadline exceeded (Client.Timeout exceeded after ${target.timeoutSeconds}s)`
          : errorMessage(err);
        return { result: 'failure', output: `Get "${url.href}": ${reason}` };
      }
      if (FOLLOWED_REDIRECTS.has(response.status) && response.location) {
        const next = new URL(response.location, url);
        if (next.hostname === first.hostname) {
          if (redirects + 1 >= MAX_REDIRECTS) {
            return { result: 'failure', output: `Get "${next.href}": stopped after ${MAX_REDIRECTS} redirects` };
          }
          if (!isRelative(response.location)) hostHeader = undefined;
          url = next;
          continue;
        }
      }
      return judge(response);
    }
  } finally {
    clearTimeout(timer);
  }
}

function judge(response: Response): ProbeOutcome {
  if (response.status >= 200 && response.status < 300) return { result: 'success', output: response.body };
  if (response.status >= 300 && response.status < 400) {
    return { result: 'success', warning: true, output: `Probe terminated redirects, Response body: ${response.body}` };
  }
  return { result: 'failure', output: `HTTP probe failed with statuscode: ${response.status}` };
}

function get(url: URL, headers: Record<string, string[]>, hostHeader: string | undefined, signal: AbortSignal): Promise<Response> {
  const client = url.protocol === 'https:' ? https : http;
  const outgoing: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(headers)) {
    if (name === 'Host') continue;
    // Go sends no User-Agent at all when the probe sets it to ''.
    if (name === 'User-Agent' && values[0] === '') continue;
    outgoing[name] = values.length === 1 ? (values[0] as string) : values;
  }
  if (hostHeader) outgoing['Host'] = hostHeader;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      { method: 'GET', headers: outgoing, agent: false, signal, ...(client === https ? { rejectUnauthorized: false } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_BODY_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
          size += Math.min(chunk.length, MAX_BODY_BYTES - size);
          // Enough for the verdict and the output: stop reading (Go: non-fatal truncation).
          if (size >= MAX_BODY_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', reject);
        res.on('close', () => {
          if (!done) reject(new Error('connection closed before the response body ended'));
        });
        let done = false;
        function finish() {
          if (done) return;
          done = true;
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).toString('utf8') });
          res.destroy();
        }
      },
    );
    request.on('error', reject);
    request.end();
  });
}

function isRelative(location: string): boolean {
  return !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(location) && !location.startsWith('//');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
