/**
 * The embedded CRI runtime: a real CRI v1 gRPC server (runtime.v1.RuntimeService and ImageService) on a
 * unix socket, inside kubelet-ts, that runs containers as plain host processes. It lets kubelet-ts run
 * pods on a machine without containerd, through the same CRI client code path (over the socket, or
 * over the in-process channel the kubelet's own client uses: in-process-channel.ts).
 *
 * How it differs from containerd — say it plainly, it is not a container runtime in the isolation sense:
 * - No isolation: no namespaces (pid, network, ipc, uts, user), no chroot, no seccomp (a
 *   sandbox or container asking for a filter is refused: seccomp-refusal.ts), no capabilities
 *   dropped, no AppArmor or SELinux label, no masked /proc paths. What a pod asks for beyond that
 *   default and cannot be applied (AppArmor, SELinux, no_new_privs, a read-only root, dropped
 *   capabilities…) is refused (security-refusals.ts). A container is a host process that sees the host's whole file system. It runs
 *   as the user running kubelet-ts, or as run_as_user/run_as_group when given (which needs root);
 *   run_as_username is refused (no image /etc/passwd). The one namespace: a container with mounts
 *   runs in a mount namespace of its own, where they are bind-mounted over the host's file system
 *   (mount-plan.ts, mount-namespace.ts; needs root); what cannot be honoured is refused at
 *   CreateContainer with INVALID_ARGUMENT.
 * - No images: an image is a name. Seeded names (`images` option) and names recorded by PullImage are
 *   "present"; nothing is downloaded; the id is sha256 of the normalized name; the size is a nominal
 *   constant (1 MiB). Every image's default entrypoint is `sh` (an empty command runs `sh` with the args).
 *   PullImage's AuthConfig is ignored (no registry is contacted): pull credentials change nothing here.
 *   A name on a registry under `.invalid` (a domain that never resolves) fails to pull.
 * - Host network only: sandboxes have no process and no IP (`network.ip` is empty, like a host-network
 *   pod); NetworkReady is always true. DNS config is ignored; port mappings bind
 *   no host port and only name what a port forward may reach.
 * - Cgroups only when the sandbox names a cgroup_parent (the kubelet with cgroupsPerQOS, as root):
 *   the container then gets `<parent>/<id>` with its cpu and memory limits, its process joins it
 *   before running the command, and an exit the OOM killer caused is `OOMKilled`
 *   (container-cgroup.ts). Otherwise no limits and never `OOMKilled` (exit 0 is `Completed`,
 *   anything else `Error`). UpdateContainerResources is accepted and does nothing; stats are
 *   measured per process group from /proc either way (container-stats.ts, approximate).
 * - The environment is PATH (the usual image default), HOSTNAME, the config's envs and HOME; nothing is
 *   inherited from kubelet-ts. The working directory must exist on the host (StartContainer fails
 *   with StartError otherwise; containerd would create it inside the image's root).
 * - Signals: StopContainer's SIGTERM goes to the container's whole process group; containerd signals
 *   only the container's PID 1, which moreover ignores signals it has no handler for (so a plain
 *   `sh -c 'sleep 3600'` stops at once here but waits out the grace period on containerd). In both,
 *   whatever is left when the main process exits is SIGKILLed (here by the shim; there by the end of
 *   the PID namespace).
 * - ExecSync kills what the command left running in its process group when the command exits.
 * - Exec, Attach and PortForward hand out URLs of a streaming server of its own on 127.0.0.1
 *   (streaming/, README "Streaming"); attach cannot give a TTY (containers run without a terminal).
 *   A port forward reaches only the TCP ports the pod declares, never the node's own
 *   (port-forward-rules.ts): on the host's network, any other port is some other service's.
 *   RuntimeConfig answers UNIMPLEMENTED.
 *
 * What it keeps from containerd: the CRI log format and 16 KiB line cap, process-group signalling for
 * StopContainer (SIGTERM, SIGKILL after the timeout; exit 137 when killed), idempotent Stop/Remove,
 * NOT_FOUND on unknown ids, and survival across restarts: the containers run under a detached shim
 * (shim.ts, one for all of them) that owns their output and records their exits, so a new runtime on the
 * same stateDir adopts running containers (pid + /proc start time) and knows the exit codes of those
 * that finished meanwhile.
 * close() stops serving but leaves containers running, as stopping containerd does.
 */
import { chmod, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeKubeletDirectory } from '../fs/make-directories.js';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { KubeletError } from '../../domain/errors.js';
import type { Logger } from '../../log.js';
import type { Clock } from '../../ports/clock.js';
import { loadCriProto } from '../cri-grpc/proto.js';
import { encodingRepeatedAnswers } from '../cri-grpc/repeated-answers.js';
import { wallClockNs } from './shim/cri-log-writer.js';
import type { CriChannel } from '../cri-grpc/unary-call.js';
import { grpcHandlers, imageOperations, runtimeOperations } from './grpc-handlers.js';
import { inProcessServer } from './in-process-channel.js';
import { EmbeddedImageService } from './images/image-service.js';
import { DEFAULT_EMBEDDED_IMAGES, ImageStore } from './images/image-store.js';
import { RuntimeState } from './state/runtime-state.js';
import { closingGracefully } from '../h2/grpc-front.js';
import { resolveShimCommand } from './shim/shim-launcher.js';
import { lockStateDir } from './state/state-dir-lock.js';
import { PortForwardRules, type ReservedPort } from './streaming/port-forward-rules.js';
import { streamHandlers } from './streaming/stream-handlers.js';
import { startStreamingServer, type StreamingServer } from './streaming/streaming-server.js';

export { DEFAULT_EMBEDDED_IMAGES } from './images/image-store.js';
export { EMBEDDED_RUNTIME_NAME } from './runtime-service.js';
export type { ReservedPort } from './streaming/port-forward-rules.js';

export interface EmbeddedRuntimeOptions {
  /** Absolute path of the unix socket to serve on. A stale socket file there is replaced. */
  socketPath: string;
  /** Where sandboxes, containers, shims and pulled image names are kept across restarts. */
  stateDir: string;
  logger?: Logger;
  /**
   * created_at of sandboxes and containers and ImageFsInfo's timestamp; the wall clock by default.
   * started_at, finished_at and log lines always come from the shim's wall clock: the shim outlives us.
   */
  clock?: Clock;
  /** Image names present from the start; default DEFAULT_EMBEDDED_IMAGES. */
  images?: readonly string[];
  /** containerd's max_container_log_line_size; default 16 KiB. */
  maxLogLineBytes?: number;
  /** Where CDI specs are read from, in rising priority; default /etc/cdi, /var/run/cdi. */
  cdiSpecDirs?: readonly string[];
  /** The streaming server for Exec/Attach/PortForward: default 127.0.0.1, a free port, 4 h idle timeout. */
  streaming?: { host?: string; port?: number; idleTimeoutMs?: number };
  /**
   * The node's own ports (the kubelet's server, read-only, healthz and debug ports): a port forward
   * never reaches them, even to a pod that declares them. The streaming server's port is added.
   */
  reservedPorts?: readonly ReservedPort[];
}

export interface EmbeddedRuntime {
  /** `unix:///…`, for --container-runtime-endpoint. */
  readonly endpoint: string;
  /** Where the streaming URLs Exec/Attach/PortForward answer point: `http://127.0.0.1:PORT`. */
  readonly streamingUrl: string;
  /** A channel to this runtime for a client in the same process (in-process-channel.ts): the socket's calls without the socket. */
  inProcessChannel(): CriChannel;
  /** Stops serving and releases the socket and the state dir; running containers keep running. */
  close(): Promise<void>;
}

/** sockaddr_un.sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/** containerd's (and the Go kubelet's) 16 MiB: a busy node's ListContainers exceeds gRPC's 4 MiB default. */
const SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
  'grpc.max_send_message_length': 16 * 1024 * 1024,
};

export async function startEmbeddedRuntime(options: EmbeddedRuntimeOptions): Promise<EmbeddedRuntime> {
  if (!options.socketPath.startsWith('/')) {
    throw new KubeletError('KLT_ERR_CRI_ENDPOINT_INVALID', `embedded runtime socket path must be absolute: ${JSON.stringify(options.socketPath)}`);
  }
  if (Buffer.byteLength(options.socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new KubeletError('KLT_ERR_CRI_ENDPOINT_INVALID', `embedded runtime socket path is longer than a unix socket allows (${MAX_SOCKET_PATH_BYTES} bytes): ${JSON.stringify(options.socketPath)}`);
  }
  const logger = options.logger ?? pino({ level: 'silent' });
  const nowNs = options.clock ? clockNs(options.clock) : wallClockNs;
  await makeKubeletDirectory(options.stateDir, 0o700);
  const lock = await lockStateDir(options.stateDir);
  let server: grpc.Server | undefined;
  let streaming: StreamingServer | undefined;
  try {
    const shim = await resolveShimCommand(options.stateDir);
    const imageStore = await ImageStore.open(options.stateDir, options.images ?? DEFAULT_EMBEDDED_IMAGES);
    const runtime = await RuntimeState.open({
      stateDir: options.stateDir, images: imageStore, shim, logger, nowNs, maxLogLineBytes: options.maxLogLineBytes,
      ...(options.cdiSpecDirs ? { cdiSpecDirs: options.cdiSpecDirs } : {}),
    });
    const forwarding = new PortForwardRules((id) => runtime.findSandbox(id), options.reservedPorts);
    streaming = await startStreamingServer({
      handlers: streamHandlers(runtime, forwarding, logger),
      ...(options.streaming?.host !== undefined ? { host: options.streaming.host } : {}),
      ...(options.streaming?.port !== undefined ? { port: options.streaming.port } : {}),
      limits: { ...(options.streaming?.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.streaming.idleTimeoutMs } : {}) },
    });
    const streams = streaming;
    forwarding.reserve({ port: streams.port, owner: 'embedded runtime\'s streaming server' });
    const images = new EmbeddedImageService(imageStore, options.stateDir, nowNs);
    const proto = loadCriProto();
    const grpcServer = new grpc.Server(SERVER_OPTIONS);
    server = grpcServer;
    // The relist's lists come back as the very objects answered before while nothing changed.
    const runtimeService = encodingRepeatedAnswers(proto.runtimeService, {
      ListPodSandbox: (answer) => ('items' in answer ? answer.items : undefined),
      ListContainers: (answer) => ('containers' in answer ? answer.containers : undefined),
    });
    const runtimeOps = runtimeOperations(runtime, streams);
    const imageOps = imageOperations(images);
    grpcServer.addService(runtimeService, grpcHandlers(runtimeOps, logger));
    grpcServer.addService(proto.imageService, grpcHandlers(imageOps, logger));
    const inProcess = inProcessServer([
      { definition: runtimeService, operations: runtimeOps },
      { definition: proto.imageService, operations: imageOps },
    ], logger);
    await unlink(options.socketPath).catch(() => undefined);
    await makeKubeletDirectory(dirname(options.socketPath));
    const endpoint = `unix://${options.socketPath}`;
    await new Promise<void>((resolve, reject) => {
      grpcServer.bindAsync(endpoint, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve()));
    });
    await chmod(options.socketPath, 0o600);
    logger.info({ endpoint, stateDir: options.stateDir, streamingUrl: streams.baseUrl }, 'Embedded CRI runtime serving');

    let closed: Promise<void> | undefined;
    return {
      endpoint,
      streamingUrl: streams.baseUrl,
      inProcessChannel: () => inProcess.channel(),
      close: () => (closed ??= (async () => {
        inProcess.stop();
        await closingGracefully(grpcServer).close();
        await streams.close();
        runtime.close();
        await unlink(options.socketPath).catch(() => undefined);
        await lock.release();
        logger.info({ endpoint }, 'Embedded CRI runtime stopped');
      })()),
    };
  } catch (err) {
    server?.forceShutdown();
    await streaming?.close();
    await lock.release();
    throw err;
  }
}

function clockNs(clock: Clock): () => bigint {
  return () => {
    const ms = clock.now();
    const whole = Math.floor(ms);
    return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1_000_000));
  };
}
