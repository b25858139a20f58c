/**
 * CRI endpoints as the kubelet's --container-runtime-endpoint / --image-service-endpoint take them.
 * Only `unix:///absolute/path` is accepted. The Go kubelet also accepts a bare path (with a
 * deprecation warning) and, on Windows, npipe://; kubelet-ts rejects both so a typo fails at start-up.
 */
import { KubeletError } from '../../domain/errors.js';

export interface CriEndpoint {
  /** The endpoint as given. */
  readonly endpoint: string;
  /** The socket's absolute path. */
  readonly socketPath: string;
  /** The grpc-js target for it. */
  readonly target: string;
}

export function parseCriEndpoint(endpoint: string): CriEndpoint {
  const prefix = 'unix://';
  if (!endpoint.startsWith(prefix)) {
    throw new KubeletError(
      'KLT_ERR_CRI_ENDPOINT_INVALID',
      `CRI endpoint ${JSON.stringify(endpoint)} is not supported: use unix:///absolute/path/to/socket`,
    );
  }
  const socketPath = endpoint.slice(prefix.length);
  if (!socketPath.startsWith('/') || socketPath.includes('\0')) {
    throw new KubeletError(
      'KLT_ERR_CRI_ENDPOINT_INVALID',
      `CRI endpoint ${JSON.stringify(endpoint)} must name an absolute socket path (unix:///path)`,
    );
  }
  return { endpoint, socketPath, target: `unix://${socketPath}` };
}
