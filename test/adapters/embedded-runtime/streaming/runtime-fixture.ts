/**
 * An embedded runtime on a temp state dir for the streaming tests, with a raw gRPC client for the
 * streaming RPCs (Exec, Attach, PortForward) beside the project's CRI client for the rest. Every
 * container started is stopped and the runtime closed by `stop()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { runtimeServiceClient } from '../../../../src/adapters/cri-grpc/grpc-js-client.js';
import { createCriClient, type GrpcCriClient } from '../../../../src/adapters/cri-grpc/index.js';
import { startEmbeddedRuntime, type EmbeddedRuntime, type EmbeddedRuntimeOptions } from '../../../../src/adapters/embedded-runtime/index.js';
import type { ContainerConfig, PodSandboxConfig } from '../../../../src/ports/cri.js';

export const BUSYBOX = 'kubelet-ts.local/busybox:1.0';

export interface RuntimeFixture {
  dir: string;
  runtime: EmbeddedRuntime;
  cri: GrpcCriClient;
  /** A raw call of a RuntimeService RPC; rejects with the gRPC error. */
  call<T>(rpc: 'Exec' | 'Attach' | 'PortForward', request: object): Promise<T>;
  /** A sandbox (with `sandboxExtra`, e.g. the pod's port_mappings) and one container in it, started. */
  runContainer(name: string, command: string[], extra?: Partial<ContainerConfig>, sandboxExtra?: Partial<PodSandboxConfig>): Promise<{ sandboxId: string; containerId: string }>;
  stop(): Promise<void>;
}

export async function startRuntimeFixture(options: Partial<EmbeddedRuntimeOptions> = {}): Promise<RuntimeFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'klt-stream-'));
  const runtime = await startEmbeddedRuntime({ socketPath: join(dir, 'cri.sock'), stateDir: join(dir, 'state'), ...options });
  const cri = createCriClient({ endpoint: runtime.endpoint });
  const Client = runtimeServiceClient();
  const raw = new Client(runtime.endpoint, grpc.credentials.createInsecure()) as unknown as Record<string, (req: object, cb: (err: Error | null, res: unknown) => void) => void>;
  const containers: string[] = [];
  return {
    dir,
    runtime,
    cri,
    call: <T>(rpc: string, request: object) => new Promise<T>((resolve, reject) => {
      raw[rpc]!.call(raw, request, (err, res) => (err ? reject(err) : resolve(res as T)));
    }),
    async runContainer(name, command, extra = {}, sandboxExtra = {}) {
      const sandbox: PodSandboxConfig = {
        metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
        log_directory: join(dir, 'logs', name),
        ...sandboxExtra,
      };
      const sandboxId = await cri.runtime.runPodSandbox(sandbox);
      const config: ContainerConfig = { metadata: { name, attempt: 0 }, image: { image: BUSYBOX }, command, log_path: `${name}/0.log`, ...extra };
      const containerId = await cri.runtime.createContainer(sandboxId, config, sandbox);
      containers.push(containerId);
      await cri.runtime.startContainer(containerId);
      return { sandboxId, containerId };
    },
    async stop() {
      for (const id of containers) await cri.runtime.removeContainer(id).catch(() => undefined);
      (raw as unknown as grpc.Client).close();
      cri.close();
      await runtime.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
