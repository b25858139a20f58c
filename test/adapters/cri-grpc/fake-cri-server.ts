/**
 * A tiny CRI gRPC server for the client adapter's unit tests: a unix socket in a temp dir, handlers
 * given per test, every request recorded. Methods without a handler answer UNIMPLEMENTED (grpc-js).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadCriProto } from '../../../src/adapters/cri-grpc/proto.js';

export type Handler = (request: Record<string, unknown>) => unknown | Promise<unknown>;
export type Handlers = Record<string, Handler>;

/** A handler's simulated latency: what the client's deadlines and retries are tested against. */
// The runtime's own slowness under test, not a wait in a test: the handler answers this much later.
export const runtimeLatency = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)); // a fake's latency

/** Throw this from a handler to answer with a gRPC status. */
export class StatusError extends Error {
  constructor(readonly code: grpc.status, details: string) { super(details); }
}

export interface FakeCriServer {
  readonly socketPath: string;
  readonly endpoint: string;
  readonly requests: { rpc: string; request: Record<string, unknown> }[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server (if running) and removes the temp dir. */
  dispose(): Promise<void>;
}

function wrap(rpc: string, handler: Handler, record: FakeCriServer['requests']): grpc.handleUnaryCall<Record<string, unknown>, unknown> {
  return (call, callback) => {
    record.push({ rpc, request: call.request });
    Promise.resolve()
      .then(() => handler(call.request))
      .then(
        (response) => callback(null, response),
        (err: unknown) => {
          if (err instanceof StatusError) callback({ code: err.code, details: err.message });
          else callback({ code: grpc.status.INTERNAL, details: String(err) });
        },
      );
  };
}

export function fakeCriServer(runtimeHandlers: Handlers, imageHandlers: Handlers = {}): FakeCriServer {
  const dir = mkdtempSync(join(tmpdir(), 'kts-cri-unit-'));
  const socketPath = join(dir, 'cri.sock');
  const requests: FakeCriServer['requests'] = [];
  let server: grpc.Server | undefined;

  const implementation = (handlers: Handlers): grpc.UntypedServiceImplementation =>
    Object.fromEntries(Object.entries(handlers).map(([rpc, h]) => [rpc, wrap(rpc, h, requests)]));

  const self: FakeCriServer = {
    socketPath,
    endpoint: `unix://${socketPath}`,
    requests,
    async start() {
      const proto = loadCriProto();
      const s = new grpc.Server();
      s.addService(proto.runtimeService, implementation(runtimeHandlers));
      s.addService(proto.imageService, implementation(imageHandlers));
      rmSync(socketPath, { force: true });
      await new Promise<void>((resolve, reject) =>
        s.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
      server = s;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.forceShutdown();
      rmSync(socketPath, { force: true });
    },
    async dispose() {
      await self.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}
