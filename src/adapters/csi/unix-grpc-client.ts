/**
 * A gRPC client on a unix socket for the node's plugins (a CSI driver's Identity and Node services,
 * a plugin's registration service), on @grpc/grpc-js: these calls are few and small, so the
 * library's HTTP/2 settings and keepalive hold without a transport of our own. Answers are taken up
 * to PLUGIN_MAX_ANSWER_BYTES unless the caller gives its own limit; a longer one is refused on its
 * length, before it is read. Every call
 * has a deadline, as the Go kubelet's CSI client sets one on every call.
 */
import * as grpc from '@grpc/grpc-js';
import type { MethodDefinition } from '@grpc/proto-loader';
import type { ServiceCodecs } from '../proto-service.js';
import { PLUGIN_MAX_ANSWER_BYTES } from './plugin-answer-bounds.js';

/** A unary call: the request's type in, the answer's out (the generated `__Output` shapes). */
export type UnaryMethods<D> = {
  [K in keyof D]: D[K] extends MethodDefinition<infer Req, infer _Res, infer _ReqOut, infer ResOut> ? (request: Req, timeoutMs: number) => Promise<ResOut> : never;
};

export interface UnixGrpcClient<D> {
  readonly call: UnaryMethods<D>;
  /**
   * Keeps the channel connected from now on, connecting again whenever it falls idle (Go asks gRPC
   * to reconnect at each connection's end, to notice a plugin that restarted), and tells
   * `listener` each time the connection comes up (true) or goes down (false). Stops at close.
   */
  watchConnection(listener: (connected: boolean) => void): void;
  close(): void;
}

/** What a unary call needs of a method's codecs. */
interface UnaryCodecs { path: string; requestSerialize: (value: never) => Buffer; responseDeserialize: (bytes: Buffer) => unknown }

/** grpc-js's wording when it refuses an answer over the channel's receive limit. */
const OVER_RECEIVE_LIMIT = /^Received message larger than max /;

/** Whether a call failed because its answer was over the client's receive limit (not a status the plugin sent). */
export function isOversizedAnswer(error: unknown): boolean {
  const e = error as Partial<grpc.ServiceError> | undefined;
  return e?.code === grpc.status.RESOURCE_EXHAUSTED && OVER_RECEIVE_LIMIT.test(e.details ?? '');
}

/**
 * A client of the service at `socketPath` (an absolute path): one method per entry of `codecs`.
 * `mapError` turns a failed call's error into the caller's (a message worded as Go's, say); it is
 * told the method's name. `maxAnswerBytes`: the channel's receive limit.
 */
export function unixGrpcClient<D extends { [K in keyof D]: UnaryCodecs }>(
  codecs: ServiceCodecs<D>, socketPath: string, mapError: (error: unknown, method: string) => unknown = (error) => error,
  maxAnswerBytes = PLUGIN_MAX_ANSWER_BYTES,
): UnixGrpcClient<D> {
  const client = new grpc.Client(`unix:${socketPath}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': maxAnswerBytes });
  const call: Record<string, (request: unknown, timeoutMs: number) => Promise<unknown>> = {};
  for (const [method, codec] of Object.entries<UnaryCodecs>(codecs)) {
    // cast: the request's type is the method's; grpc-js takes the serializer of any value.
    const serialize = codec.requestSerialize as (value: unknown) => Buffer;
    call[method] = (request, timeoutMs) => new Promise((resolve, reject) => {
      client.makeUnaryRequest(codec.path, serialize, codec.responseDeserialize, request, { deadline: Date.now() + timeoutMs }, (error, answer) => {
        if (error) reject(mapError(error, method));
        else resolve(answer);
      });
    });
  }
  // cast: one function per method of the definition, each typed by it; the keys are only known at run time.
  return { call: call as UnaryMethods<D>, watchConnection: (listener) => watchConnection(client.getChannel(), listener), close: () => client.close() };
}

function watchConnection(channel: ReturnType<grpc.Client['getChannel']>, listener: (connected: boolean) => void): void {
  const { IDLE, READY, SHUTDOWN } = grpc.connectivityState;
  let connected = false;
  const follow = (): void => {
    const state = channel.getConnectivityState(false);
    if (state === SHUTDOWN) return;
    // From IDLE only: asked in TRANSIENT_FAILURE it would cut the channel's reconnect backoff short.
    if (state === IDLE) channel.getConnectivityState(true);
    if ((state === READY) !== connected) {
      connected = state === READY;
      listener(connected);
    }
    channel.watchConnectivityState(state, Infinity, follow);
  };
  follow();
}
