/** The test API server for cluster-mode tests: import everything from here. */
export { startTestApiServer } from './server.js';
export type { Faults, RequestRecord, TestApiServer, TestApiServerOptions } from './server.js';
export { ObjectStore, rfc3339 } from './store.js';
export type { DeleteOptions, DeleteResult, ListOptions, ResourceRef, StoreChange, WriteMode } from './store.js';
export type { KubeObject, ObjectMeta, ResourceDef, StorageKey } from './resources.js';
export { RESOURCES, findResource } from './resources.js';
export type { Authorize, Reviews, SubjectAccessReviewSpec, SubjectAccessReviewStatus, UserInfo } from './reviews.js';
export type { RequestInfo } from './faults.js';
export { ApiError, statusBody } from './status.js';
export type { StatusBody } from './status.js';
export { kubeconfigText } from './kubeconfig.js';
