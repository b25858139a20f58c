/**
 * The gRPC prober (Go: pkg/probe/grpc): one grpc.health.v1 Health/Check call per attempt, over a
 * channel of its own that is closed when the attempt ends.
 * - The channel is insecure (Go: credentials are not supported) and carries the user agent
 *   `kube-probe/<major>.<minor>` ahead of the library's own token, as Go's WithUserAgent does
 *   (`grpc-node-js/…` here where Go sends `grpc-go/…`).
 * - The probe's timeout covers the whole attempt: connecting, then the call. Like Go's blocking dial,
 *   a refused or unreachable address is retried within it, so it fails only when the time is up.
 * - The request names the probe's `service` ("" asks about the server as a whole).
 * - SERVING: success. Any other status, and every error, is a failure with Go's wording; never
 *   `unknown` (Go: "any failure is considered as a probe failure", its err is always nil).
 */
import * as grpc from '@grpc/grpc-js';
import { formatGoDuration } from '../../domain/config/duration.js';
import { joinHostPort, probeUserAgent } from '../../domain/probe/target.js';
import type { ProbeOutcome, ProbeTarget } from '../../domain/probe/types.js';
import type { HealthCheckResponse__Output } from '../../generated/grpc/health/v1/HealthCheckResponse.js';
import { loadHealthProto } from './grpc-health-proto.js';

type GrpcTarget = Extract<ProbeTarget, { kind: 'grpc' }>;

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.primary_user_agent': probeUserAgent(),
  // A connection of the attempt's own, gone with its channel: no socket outlives the attempt, and
  // no attempt reuses another's connection (Go dials afresh every time).
  'grpc.use_local_subchannel_pool': 1,
};

/** grpc-go's codes.Code names, indexed by status number, for Go's "rpc error: code = … desc = …". */
const GO_CODE_NAMES = [
  'OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists',
  'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented',
  'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated',
];

export async function grpcProbe(target: GrpcTarget): Promise<ProbeOutcome> {
  const address = joinHostPort(target.host, target.port);
  const timeout = formatGoDuration(target.timeoutSeconds * 1000);
  const deadline = Date.now() + target.timeoutSeconds * 1000;
  const { healthService } = loadHealthProto();
  let client: grpc.Client;
  try {
    client = new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  } catch (err) {
    return failure(`error: failed to connect service at ${JSON.stringify(address)}: ${errorMessage(err)}`);
  }
  try {
    const connectError = await waitForReady(client, deadline);
    if (connectError) {
      // Go's blocking dial ends only with its context, so its error is the deadline's. grpc-js's
      // wait ends in an error only at the deadline or on a closed channel; the deadline is told by
      // the channel, not the clock: its timer can fire a millisecond before Date.now() reaches it.
      return channelClosed(client)
        ? failure(`error: failed to connect service at ${JSON.stringify(address)}: ${connectError.message}`)
        : failure(`timeout: failed to connect service ${JSON.stringify(address)} within ${timeout}: context deadline exceeded`);
    }
    const { err, response } = await check(client, healthService.Check, target.service, deadline);
    if (err) return failure(rpcFailure(err, timeout));
    // A status newer than our proto arrives as its number; Go names it by number too.
    const status = String(response?.status ?? 'UNKNOWN');
    if (status !== 'SERVING') return failure(`service unhealthy (responded with ${JSON.stringify(status)})`);
    return { result: 'success', output: 'service healthy' };
  } finally {
    client.close();
  }
}

function rpcFailure(err: grpc.ServiceError, timeout: string): string {
  switch (err.code) {
    case grpc.status.UNIMPLEMENTED:
      return `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${err.details}`;
    case grpc.status.DEADLINE_EXCEEDED:
      return `timeout: health rpc did not complete within ${timeout}`;
    default:
      return `error: health rpc probe failed: rpc error: code = ${GO_CODE_NAMES[err.code] ?? `Code(${err.code})`} desc = ${err.details}`;
  }
}

function channelClosed(client: grpc.Client): boolean {
  try {
    return client.getChannel().getConnectivityState(false) === grpc.connectivityState.SHUTDOWN;
  } catch {
    return true;
  }
}

function waitForReady(client: grpc.Client, deadline: number): Promise<Error | undefined> {
  return new Promise((resolve) => client.waitForReady(deadline, (err) => resolve(err)));
}

type CheckMethod = ReturnType<typeof loadHealthProto>['healthService']['Check'];

function check(client: grpc.Client, method: CheckMethod, service: string, deadline: number): Promise<{ err: grpc.ServiceError | null; response?: HealthCheckResponse__Output }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, { service }, { deadline }, (err, response) =>
      resolve(response ? { err, response } : { err }));
  });
}

function failure(output: string): ProbeOutcome {
  return { result: 'failure', output };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
