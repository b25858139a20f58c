export { createCriClient, type CriClientOptions, type GrpcCriClient } from './client.js';
export { parseCriEndpoint, type CriEndpoint } from './endpoint.js';
export { GRPC_STATUS_TO_KUBELET_ERROR, toKubeletError } from './grpc-errors.js';
export { loadCriProto, warmUpCriCodecs, type CriProto } from './proto.js';
export {
  DEFAULT_IMAGE_PULL_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS, type CriDeadlines,
} from './deadlines.js';
export { KUBE_RUNTIME_API_VERSION, type GrpcCriRuntimeService } from './runtime-service.js';
