/**
 * The API calls of Go's CSI nodeinfomanager: the node's CSINode (storage.k8s.io/v1, named after the
 * node) and the Node's labels and annotations. The node's own credentials may make them (the Node
 * authorizer and NodeRestriction allow a node its own CSINode and Node). Errors as the API port's
 * (KLT_ERR_API_*; 404 is KLT_ERR_API_NOT_FOUND, a stale resourceVersion KLT_ERR_API_CONFLICT).
 */
import type { CsiNodeObject } from '../domain/csi/csi-node.js';
import type { NodeApi } from './apiserver.js';

export interface CsiNodeApi extends Pick<NodeApi, 'getNode' | 'patchNode'> {
  getCsiNode(name: string): Promise<CsiNodeObject>;
  createCsiNode(csiNode: CsiNodeObject): Promise<CsiNodeObject>;
  /** PUT with metadata.resourceVersion. */
  updateCsiNode(csiNode: CsiNodeObject): Promise<CsiNodeObject>;
}
