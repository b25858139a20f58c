/**
 * The healthz server (run.healthz): healthzBindAddress:healthzPort, 127.0.0.1:10248 by default,
 * port 0 turns it off. `/healthz` runs every check (ping, log, syncloop) and answers `ok`, or 500
 * with the failed checks; `/healthz/<check>` runs one; `?verbose` lists each, as the Go kubelet's
 * k8s.io/apiserver healthz does. Plain HTTP on loopback, no authentication (as in Go).
 *
 * Served by node:http with no routing table: the healthz server starts early in start-up, and has
 * two paths. The kubelet server answers its own /healthz with the same `healthzAnswer`.
 */
import { createServer } from 'node:http';
import { listenHttpServer, type RunningServer } from './listen.js';

export interface HealthCheck {
  name: string;
  /** null when healthy, else why not. */
  check: () => string | null;
}

export interface HealthzAnswer {
  code: number;
  body: string;
}

export const HEALTHZ_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** What an unknown path or check gets, as Go's mux answers it. */
export const HEALTHZ_NOT_FOUND: HealthzAnswer = { code: 404, body: '404 page not found\n' };

/** The answer to a request for `url` (path and query), or null when it is not a healthz path. */
export function healthzAnswer(checks: readonly HealthCheck[], url: string): HealthzAnswer | null {
  const { pathname, searchParams } = new URL(url, 'http://healthz');
  const verbose = searchParams.has('verbose');
  if (pathname === '/healthz') return run(checks, verbose);
  const match = /^\/healthz\/([^/]+)$/.exec(pathname);
  if (!match) return null;
  const check = checks.find((c) => c.name === decodeURIComponent(match[1]!));
  return check ? run([check], verbose) : HEALTHZ_NOT_FOUND;
}

function run(selected: readonly HealthCheck[], verbose: boolean): HealthzAnswer {
  const results = selected.map((c) => ({ name: c.name, problem: c.check() }));
  const failed = results.filter((r) => r.problem !== null);
  if (!verbose && failed.length === 0) return { code: 200, body: 'ok' };
  const lines = results.map((r) => (r.problem === null ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.problem}`));
  lines.push(failed.length === 0 ? 'healthz check passed' : 'healthz check failed');
  return { code: failed.length === 0 ? 200 : 500, body: lines.join('\n') + '\n' };
}

export async function startHealthz(host: string, port: number, checks: readonly HealthCheck[]): Promise<RunningServer> {
  const server = createServer({ requestTimeout: 10_000, headersTimeout: 10_000 }, (req, res) => {
    const answer = healthzAnswer(checks, req.url ?? '/') ?? HEALTHZ_NOT_FOUND;
    res.writeHead(answer.code, { 'Content-Type': HEALTHZ_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(answer.body) });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  });
  // A client that sends nothing for 10 s is dropped:
  // idle connections must not pile up on a server every prober reaches.
  server.setTimeout(10_000, (socket) => socket.destroy());
  return listenHttpServer(server, { host, port, what: 'healthz address', retryable: true });
}
