/**
 * The CRI client: both CRI services over grpc-js on unix sockets (or over the in-process channel of
 * a runtime served in this process), implementing `CriClient`.
 *
 * Connection handling follows the Go kubelet's remote runtime: one channel per endpoint, calls fail
 * fast (no wait-for-ready) with KLT_ERR_CRI_UNAVAILABLE while the runtime is away, and the channel
 * reconnects on its own with a short capped back-off (100 ms → 3 s, as the Go kubelet's dial
 * options), so a runtime that comes back is used again without recreating the client. A runtime
 * that comes back on a new socket is called at once on a fresh channel (socket-channel.ts). The
 * list calls the relist makes every second (ListPodSandbox, ListContainers, whoever calls them) skip
 * grpc-js for a bare HTTP/2 stream on the same socket (hot-calls-channel.ts, http2-unary-client.ts):
 * the same bytes and statuses at less CPU.
 */
import * as grpc from '@grpc/grpc-js';
import type { RuntimeServiceDefinition } from '../../generated/runtime/v1/RuntimeService.js';
import type { CriClient } from '../../ports/cri.js';
import {
  DEFAULT_IMAGE_PULL_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, type CriDeadlines,
} from './deadlines.js';
import { parseCriEndpoint, type CriEndpoint } from './endpoint.js';
import { createImageService } from './image-service.js';
import { listAnswerShape } from './list-answer-shape.js';
import { loadCriProto } from './proto.js';
import { decodingRepeatedAnswers } from './repeated-answers.js';
import { createRuntimeService, type GrpcCriRuntimeService } from './runtime-service.js';
import { socketChannel, type CriChannel } from './socket-channel.js';
import { withHotCallsOnHttp2 } from './hot-calls-channel.js';

export interface CriClientOptions {
  /** --container-runtime-endpoint, `unix:///path`. */
  endpoint: string;
  /** --image-service-endpoint; the runtime endpoint when absent or empty. */
  imageEndpoint?: string;
  /** --runtime-request-timeout in ms (Go default 2m). */
  runtimeRequestTimeoutMs?: number;
  /** Deadline of reads and status calls (kubelet-ts only; see deadlines.ts). */
  readTimeoutMs?: number;
  imagePullTimeoutMs?: number;
  /**
   * A runtime served in this very process (the embedded one): calls to its endpoint go over its
   * in-process channel instead of its socket.
   */
  inProcess?: { readonly endpoint: string; channel(): CriChannel };
}

/** `CriClient` whose runtime service implements every optional method of the port. */
export interface GrpcCriClient extends CriClient {
  readonly runtime: GrpcCriRuntimeService;
}

/** The Go kubelet's maxMsgSize: ListContainers on a busy node exceeds grpc's 4 MiB default. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 3_000,
};

/** The lists a relist asks for every second: their repeated entries are not decoded again. */
const RELIST_METHODS = ['ListPodSandbox', 'ListContainers'] as const;
let relistAwareService: RuntimeServiceDefinition | undefined;

function runtimeServiceForClients(): RuntimeServiceDefinition {
  if (relistAwareService) return relistAwareService;
  const { runtimeService, definition } = loadCriProto();
  const lists = Object.fromEntries(RELIST_METHODS.map((method) => [method, listAnswerShape(definition, 'runtime.v1.RuntimeService', method)]));
  relistAwareService = decodingRepeatedAnswers(runtimeService, lists);
  return relistAwareService;
}

/** The relist's calls by path: on a runtime's socket they skip grpc-js (hot-calls-channel.ts). */
function relistPaths(): ReadonlySet<string> {
  const service = runtimeServiceForClients();
  return new Set(RELIST_METHODS.map((method) => service[method].path));
}

export function createCriClient(options: CriClientOptions): GrpcCriClient {
  const runtimeEndpoint = parseCriEndpoint(options.endpoint);
  const imageEndpoint = options.imageEndpoint ? parseCriEndpoint(options.imageEndpoint) : runtimeEndpoint;
  const deadlines: CriDeadlines = {
    runtimeRequestTimeoutMs: options.runtimeRequestTimeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
    readTimeoutMs: options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    imagePullTimeoutMs: options.imagePullTimeoutMs ?? DEFAULT_IMAGE_PULL_TIMEOUT_MS,
  };

  const inProcessSocket = options.inProcess ? parseCriEndpoint(options.inProcess.endpoint).socketPath : undefined;
  const channelTo = ({ target, socketPath }: CriEndpoint): CriChannel =>
    socketPath === inProcessSocket ? options.inProcess!.channel() : socketChannel(target, socketPath, CHANNEL_OPTIONS);
  const runtimeChannel = runtimeEndpoint.socketPath === inProcessSocket
    ? channelTo(runtimeEndpoint)
    : withHotCallsOnHttp2(channelTo(runtimeEndpoint), runtimeEndpoint.socketPath, relistPaths(), MAX_MESSAGE_BYTES);
  // Same socket: the image service calls on the runtime's channel, so there is one connection to watch and close.
  const imageChannel = imageEndpoint.socketPath === runtimeEndpoint.socketPath ? runtimeChannel : channelTo(imageEndpoint);

  let closed = false;
  return {
    runtime: createRuntimeService(runtimeChannel, runtimeServiceForClients(), deadlines),
    images: createImageService(imageChannel, loadCriProto().imageService, deadlines),
    close() {
      if (closed) return;
      closed = true;
      imageChannel.close();
      runtimeChannel.close();
    },
  };
}
