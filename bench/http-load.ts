/**
 * Concurrent HTTPS clients against the kubelet server on loopback: each client has its own
 * keep-alive agent (one connection, as a scraper or a kubectl would hold), sends its requests one
 * after another, cycling through `paths` from its own offset, until `durationMs` is over or it sent
 * `requestsPerClient`. Latency is request sent → whole body received. A response that is not 200,
 * a connection error, or a body `check` refuses is an error, kept with its reason.
 * The server's certificate is self-signed: it is not verified. No credentials are sent, so the
 * kubelet must allow anonymous requests (the benchmarks and tests run it with anonymous + AlwaysAllow).
 */
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  port: number;
  paths: readonly string[];
  clients: number;
  /** Stop starting requests after this long… */
  durationMs?: number;
  /** …or after this many per client (whichever comes first). */
  requestsPerClient?: number;
  /** Judges a 200 body; answers the problem, or null. Without it, bodies are counted, not kept. */
  check?: (path: string, body: string) => string | null;
}

export interface PathFigures {
  requests: number;
  errors: number;
  bytes: number;
  latenciesMs: number[];
}

export interface LoadResult {
  elapsedMs: number;
  byPath: Record<string, PathFigures>;
  /** The first few errors, as `path: reason`. */
  errorSamples: string[];
}

function get(agent: Agent, port: number, path: string, keepBody: boolean): Promise<{ status: number; bytes: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, agent, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (keepBody) chunks.push(d);
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, bytes, body: keepBody ? Buffer.concat(chunks).toString() : '' }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const byPath: Record<string, PathFigures> = Object.fromEntries(o.paths.map((p) => [p, { requests: 0, errors: 0, bytes: 0, latenciesMs: [] }]));
  const errorSamples: string[] = [];
  const fail = (path: string, reason: string) => {
    byPath[path]!.errors += 1;
    if (errorSamples.length < 10) errorSamples.push(`${path}: ${reason}`);
  };
  const started = performance.now();
  const endAt = o.durationMs === undefined ? Infinity : started + o.durationMs;
  const perClient = o.requestsPerClient ?? Infinity;
  if (endAt === Infinity && perClient === Infinity) throw new Error('a load needs durationMs or requestsPerClient');

  const client = async (index: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let n = 0; n < perClient && performance.now() < endAt; n++) {
        const path = o.paths[(index + n) % o.paths.length]!;
        const figures = byPath[path]!;
        const t0 = performance.now();
        try {
          const res = await get(agent, o.port, path, o.check !== undefined);
          figures.latenciesMs.push(performance.now() - t0);
          figures.requests += 1;
          figures.bytes += res.bytes;
          const problem = res.status !== 200 ? `status ${res.status}` : o.check?.(path, res.body) ?? null;
          if (problem) fail(path, problem);
        } catch (err) {
          figures.requests += 1;
          fail(path, (err as Error).message);
        }
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: o.clients }, (_, i) => client(i)));
  return { elapsedMs: performance.now() - started, byPath, errorSamples };
}

/** One GET on its own connection: the body as text, and the status. */
export async function httpsText(port: number, path: string): Promise<{ status: number; body: string }> {
  const agent = new Agent({ keepAlive: false });
  try {
    const { status, body } = await get(agent, port, path, true);
    return { status, body };
  } finally {
    agent.destroy();
  }
}
