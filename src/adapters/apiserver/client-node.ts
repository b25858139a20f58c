/** @kubernetes/client-node, loaded after the Node 20 stand-ins it needs. Import it only from here. */
import './node20-compat.js';

export { ApiException, AuthenticationV1Api, AuthorizationV1Api, CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
// The generated client's Observable stand-in, for middleware (it has no exports map, so the path is stable).
export { of } from '@kubernetes/client-node/dist/gen/rxjsStub.js';
