/**
 * The baseline for the CRI client's overhead: the same proto, the same grpc-js, the same channel
 * options, but a bare generated client and a promise around its callback — no deadline, no error
 * mapping, no request shaping. Whatever kubelet-ts's client costs on top shows as the ratio.
 */
import * as grpc from '@grpc/grpc-js';
import { runtimeServiceClient } from '../src/adapters/cri-grpc/grpc-js-client.js';

type Callback = (err: grpc.ServiceError | null, response?: unknown) => void;
type RawMethod = (request: object, callback: Callback) => grpc.ClientUnaryCall;

export interface RawRuntimeClient {
  call<Res>(rpc: string, request: object): Promise<Res>;
  close(): void;
}

const SIXTEEN_MIB = 16 * 1024 * 1024;

export function createRawRuntimeClient(endpoint: string): RawRuntimeClient {
  const RuntimeServiceClient = runtimeServiceClient();
  // Same limits as kubelet-ts's client; the reconnect back-off does not matter to a live socket.
  const client = new RuntimeServiceClient(endpoint, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': SIXTEEN_MIB,
    'grpc.max_send_message_length': SIXTEEN_MIB,
  });
  const methods = client as unknown as Record<string, RawMethod>;
  return {
    call: <Res>(rpc: string, request: object) => new Promise<Res>((resolve, reject) => {
      methods[rpc]!.call(client, request, (err, response) => (err ? reject(err) : resolve(response as Res)));
    }),
    close: () => client.close(),
  };
}
