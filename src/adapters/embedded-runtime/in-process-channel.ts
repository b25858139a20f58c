/**
 * The kubelet's channel to the embedded runtime it runs itself: the same CRI calls as on the socket,
 * without HTTP/2 between two ends of one process.
 *
 * Why: over the socket, each call would be paid twice in the one process, grpc-js's client and its
 * server; with the relist's two calls a second that HTTP/2 is the largest part of an idle node's
 * CPU on the embedded runtime (docs/FINDINGS.md). Here a call is what it would be on the wire minus
 * the transport: the request is encoded by the client's codec and decoded by the server's, the
 * answer encoded by the server's and decoded by the client's. So the kubelet sees exactly what a
 * socket would hand it (defaults filled, int64 as strings, its own copies, never the runtime's
 * objects), and the repeated-answer codecs on both ends (cri-grpc/repeated-answers.ts) still skip
 * an unchanged relist. Failures are gRPC statuses as on the socket (grpc-handlers.ts `settle`), so
 * the client maps them to the same KubeletErrors; the deadline is kept by a timer, as grpc-js keeps
 * it.
 *
 * The socket is still served (crictl, the CRI contract suite, anything else on the node).
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { Logger } from '../../log.js';
import type { CriChannel, UnaryCallback, UnaryClient } from '../cri-grpc/unary-call.js';
import { refuseCall, serviceError, settledOnce } from '../cri-grpc/call-outcome.js';
import { GrpcStatus } from '../cri-grpc/grpc-status.js';
import { settle, type Operation } from './grpc-handlers.js';

/** A service definition and the operations that serve its methods (by the definition's method names). */
export interface ServedService {
  readonly definition: ServiceDefinition;
  readonly operations: object;
}

interface ServedMethod {
  readonly rpc: string;
  readonly definition: MethodDefinition<unknown, unknown>;
  readonly operation: Operation<unknown, unknown>;
}

function methodsByPath(services: readonly ServedService[]): Map<string, ServedMethod> {
  const byPath = new Map<string, ServedMethod>();
  for (const { definition, operations } of services) {
    for (const [rpc, method] of Object.entries(definition)) {
      const operation = (operations as Record<string, Operation<unknown, unknown> | undefined>)[rpc];
      if (operation) byPath.set(method.path, { rpc, definition: method as MethodDefinition<unknown, unknown>, operation });
    }
  }
  return byPath;
}

export interface InProcessServer {
  /** A channel for one client; closing it ends that client's calls only. */
  channel(): CriChannel;
  /** The runtime is going away: every channel's calls fail UNAVAILABLE from now on, as on a closed socket. */
  stop(): void;
}

export function inProcessServer(services: readonly ServedService[], logger: Logger): InProcessServer {
  const methods = methodsByPath(services);
  let serving = true;

  const call = <Req, Res>(
    path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req,
    deadline: number, callback: UnaryCallback<Res>,
    open: () => boolean,
  ): void => {
    // The client's codec runs first and may throw, synchronously, as grpc-js's does.
    const bytes = serialize(request);
    const refuse = (code: GrpcStatus, details: string) => refuseCall(callback, code, details);
    if (!serving || !open()) return refuse(GrpcStatus.UNAVAILABLE, 'the embedded runtime is not serving');
    const method = methods.get(path);
    if (!method) return refuse(GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    let served: unknown;
    try {
      served = method.definition.requestDeserialize(bytes);
    } catch (err) {
      return refuse(GrpcStatus.INTERNAL, `Error deserializing request: ${(err as Error).message}`);
    }
    // A call waiting on its deadline does not keep the process alive by itself.
    const finish = settledOnce(deadline, callback, { holdsProcess: false });
    settle(method.rpc, logger, method.operation, served, (failure, answer) => {
      if (failure) return finish(serviceError(failure.code, failure.details));
      let response: Res;
      try {
        response = deserialize(method.definition.responseSerialize(answer));
      } catch (err) {
        return finish(serviceError(GrpcStatus.INTERNAL, `Error serializing response: ${(err as Error).message}`));
      }
      finish(null, response);
    });
  };

  return {
    channel() {
      let open = true;
      const client: UnaryClient = {
        makeUnaryRequest: (path, serialize, deserialize, request, options, callback) =>
          call(path, serialize, deserialize, request, options.deadline, callback, () => open),
      };
      return { client: () => client, close: () => { open = false; } };
    },
    stop: () => { serving = false; },
  };
}
