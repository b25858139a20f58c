/**
 * The healthz server (run.healthz): healthzBindAddress:healthzPort, 127.0.0.1:10248 by default,
 * port 0 turns it off. `/healthz` runs every check (ping, log, syncloop) and answers `ok`, or 500
 * with the failed checks; `/healthz/<check>` runs one; `?verbose` lists each, as the Go kubelet's
 * k8s.io/apiserver healthz does. Plain HTTP on loopback, no authentication (as in Go).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { listenAndReport, type RunningServer } from './listen.js';

export interface HealthCheck {
  name: string;
  /** null when healthy, else why not. */
  check: () => string | null;
}

export function buildHealthzApp(checks: HealthCheck[]): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1024, connectionTimeout: 10_000, requestTimeout: 10_000 });
  const run = (selected: HealthCheck[], verbose: boolean) => {
    const results = selected.map((c) => ({ name: c.name, problem: c.check() }));
    const failed = results.filter((r) => r.problem !== null);
    if (!verbose && failed.length === 0) return { code: 200, body: 'ok' };
    const lines = results.map((r) => (r.problem === null ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.problem}`));
    lines.push(failed.length === 0 ? 'healthz check passed' : 'healthz check failed');
    return { code: failed.length === 0 ? 200 : 500, body: lines.join('\n') + '\n' };
  };
  app.get('/healthz', async (req, reply) => {
    const { code, body } = run(checks, 'verbose' in (req.query as object));
    return reply.code(code).type('text/plain; charset=utf-8').send(body);
  });
  app.get<{ Params: { check: string } }>('/healthz/:check', async (req, reply) => {
    const check = checks.find((c) => c.name === req.params.check);
    if (!check) return reply.code(404).type('text/plain; charset=utf-8').send('404 page not found\n');
    const { code, body } = run([check], 'verbose' in (req.query as object));
    return reply.code(code).type('text/plain; charset=utf-8').send(body);
  });
  return app;
}

export async function startHealthz(host: string, port: number, checks: HealthCheck[]): Promise<RunningServer> {
  return listenAndReport(buildHealthzApp(checks), { host, port, what: 'healthz address', retryable: true });
}
