/**
 * The CRI client: both CRI services over one bare HTTP/2 client per unix socket (or over the
 * in-process channel of a runtime served in this process), implementing `CriClient`.
 *
 * Connection handling follows the Go kubelet's remote runtime where it shows: calls fail fast (no
 * wait-for-ready) with KLT_ERR_CRI_UNAVAILABLE while the runtime is away, and a runtime that comes
 * back, on the same socket or a new one, is used again without recreating the client. Go's grpc-go
 * waits out a reconnect back-off (100 ms → 3 s) first; here the next call connects at once
 * (http2-unary-client.ts), never later than Go.
 */
import type { RuntimeServiceDefinition } from '../../generated/runtime/v1/RuntimeService.js';
import type { CriClient } from '../../ports/cri.js';
import {
  DEFAULT_IMAGE_PULL_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, type CriDeadlines,
} from './deadlines.js';
import { parseCriEndpoint, type CriEndpoint } from './endpoint.js';
import { createImageService } from './image-service.js';
import { listAnswerShape } from './list-answer-shape.js';
import type { ServiceCodecs } from '../proto-service.js';
import { loadCriProto } from './proto.js';
import { decodingRepeatedAnswers } from './repeated-answers.js';
import { createRuntimeService, type GrpcCriRuntimeService } from './runtime-service.js';
import { http2Channel } from './http2-channel.js';
import type { CriChannel } from './unary-call.js';

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

/** The lists a relist asks for every second: their repeated entries are not decoded again. */
const RELIST_METHODS = ['ListPodSandbox', 'ListContainers'] as const;
let relistAwareService: ServiceCodecs<RuntimeServiceDefinition> | undefined;

function runtimeServiceForClients(): ServiceCodecs<RuntimeServiceDefinition> {
  if (relistAwareService) return relistAwareService;
  const { runtimeService, root } = loadCriProto();
  const lists = Object.fromEntries(RELIST_METHODS.map((method) => [method, listAnswerShape(root, 'runtime.v1.RuntimeService', method)]));
  relistAwareService = decodingRepeatedAnswers(runtimeService, lists);
  return relistAwareService;
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
  const channelTo = ({ socketPath }: CriEndpoint): CriChannel =>
    socketPath === inProcessSocket ? options.inProcess!.channel() : http2Channel(socketPath, MAX_MESSAGE_BYTES);
  const runtimeChannel = channelTo(runtimeEndpoint);
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
