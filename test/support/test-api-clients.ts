/**
 * The kubelet's own API clients (createApiClients, no rate limit) on a test API server on loopback,
 * for the adapter suites that talk to it: started before the suite's tests, stopped after them.
 */
import '../apiserver/node20-compat.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createApiClients } from '../../src/adapters/apiserver/create-api-clients.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { ApiClients } from '../../src/ports/apiserver.js';
import { startTestApiServer, type TestApiServer } from '../apiserver/index.js';

export interface ApiClientsOnTestServer {
  server: TestApiServer;
  api: ApiClients;
}

/** Registers the suite's beforeAll/afterAll; the returned object is filled in by beforeAll. */
export function useApiClientsOnTestServer(dirPrefix: string): ApiClientsOnTestServer {
  const ctx = {} as ApiClientsOnTestServer;
  let dir = '';
  beforeAll(async () => {
    ctx.server = await startTestApiServer();
    dir = mkdtempSync(join(tmpdir(), dirPrefix));
    ctx.api = createApiClients({
      kubeconfigPath: ctx.server.kubeconfigPath(dir), qps: 0, burst: 0, eventQps: 0, eventBurst: 0, heartbeatTimeoutMs: 10_000,
      clock: systemClock, logger: pino({ level: 'silent' }),
    });
  }, 30_000);
  afterAll(async () => {
    ctx.api.close();
    await ctx.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return ctx;
}
