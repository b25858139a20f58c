/**
 * The test API server: kept for the faults a real API server cannot produce on demand (injected
 * latency, 5xx answers, 410 Gone, dropped watches, an outage mid-request or of a minute), for the
 * cluster-mode suites not moved to the real control plane yet (eviction, the resource metrics,
 * certificate rotation, the API pod source's edge cases) and for unit-level checks of the API
 * clients. Cluster-mode behaviour a real API server can show runs on the real control plane
 * (test/support/kube-lab.ts, lab-node.ts): kubectl logs, exec, attach and port-forward and the
 * kubelet server's TokenReview and SubjectAccessReview among it, so no integration test goes
 * through this server's pods/log, exec, attach or portforward proxy any more. Where the two servers
 * differ is listed in docs/reference/cluster-mode.md. Import everything from here.
 *
 *   const server = await startTestApiServer({ token: 't' });      // or { tls: true }
 *   const kubeconfig = server.kubeconfigPath(dir);                 // token user; TLS: CA data too
 *   server.store.create('pods', { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [...] } });
 *   server.faults.stopListening(); … server.faults.resumeListening();
 *   server.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/leases/n1'));
 *   writeFileSync(clientCa, await server.kubeletClientCaPem());    // a kubelet's x509 clientCAFile: pods/log reaches it
 *   const claims = await server.tokens.verify(token);               // a token from serviceaccounts/<sa>/token
 *   server.tokens.requests;                                          // every TokenRequest: who, for which pod, audiences
 *   await server.close();
 *
 * Importing this module also installs the Node 20 stand-ins client-node 2.0.1 needs
 * (node20-compat.ts), so import it before anything that loads @kubernetes/client-node.
 */
import './node20-compat.js';

export { startTestApiServer, TOKEN_USER } from './server.js';
export type { AuthenticatedUser, Faults, RequestRecord, TestApiServer, TestApiServerOptions } from './server.js';
export type { ClientCertificate } from './pki.js';
export { CLIENT_SIGNER, SERVING_SIGNER, CsrController, type CsrPolicy } from './csr-controller.js';
export { ObjectStore, rfc3339 } from './store.js';
export type { DeleteOptions, DeleteResult, ListOptions, ResourceRef, StoreChange, WriteMode } from './store.js';
export type { KubeObject, ObjectMeta, ResourceDef, StorageKey } from './resources.js';
export { RESOURCES, findResource } from './resources.js';
export type { Authorize, Reviews, SubjectAccessReviewSpec, SubjectAccessReviewStatus, UserInfo } from './reviews.js';
export type { RequestInfo } from './faults.js';
export { DEFAULT_SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens } from './service-account-tokens.js';
export type {
  BoundObjectRef, KubernetesClaim, ObjectClaim, ServiceAccountClaims, ServiceAccountTokenOptions, TokenRequestRecord,
} from './service-account-tokens.js';
export type { RsaJwk } from './jwt.js';
export { DEFAULT_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP } from './namespace-defaults.js';
export { kubeApiAccessName, kubeApiAccessVolume } from './kube-api-access.js';
export { ApiError, statusBody } from './status.js';
export { KUBELET_CLIENT_USER } from './kubelet-client.js';
export type { StatusBody, StatusCause } from './status.js';
export { kubeconfigText } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
