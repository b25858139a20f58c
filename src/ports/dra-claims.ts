/**
 * The kubelet's DRA claim manager (Go: pkg/kubelet/cm/dra Manager): the runtime manager asks it to
 * prepare a pod's claims before the pod's sandbox is made, for each container's CDI devices, and to
 * unprepare the claims once the pod's containers are gone.
 */
import type { Container, Pod } from '../domain/pod/types.js';
import type { ResourceClaim } from '../domain/dra/resource-claim.js';
import type { ClaimInfo } from '../domain/dra/claim-info.js';

export interface DraClaimManager {
  /** Go's PrepareResources; rejects with KLT_ERR_DRA_CLAIM or KLT_ERR_DRA_PLUGIN and Go's words. */
  prepare(pod: Pod): Promise<void>;
  /** The CDI device ids of the claims `container` uses (Go's GetResources); throws when a claim is not prepared. */
  cdiDevices(pod: Pod, container: Container): string[];
  /** Go's UnprepareResources: the pod's claims that no other pod uses are unprepared and forgotten. */
  unprepare(pod: Pod): Promise<void>;
  /**
   * Go's reconcileLoop: every pod the kept claims name that is not in `holders` (the pods that may
   * still run) is unprepared as unprepare() does it; a failure is logged and left for the next call.
   * Resolves to the number of pods unprepared.
   */
  reconcile(holders: ReadonlySet<string>): Promise<number>;
  /** The claims `container` uses as kept (Go's GetContainerClaimInfos), for the pod resources API; a claim not kept is left out. */
  containerClaims(pod: Pod, container: Container): ClaimInfo[];
  /** Counts the changes of what is kept: the same number, the same claims. */
  version(): number;
}

/** A claim as the API server has it (GET resource.k8s.io/v1 resourceclaims); rejects when it cannot be read. */
export type ClaimGetter = (namespace: string, name: string) => Promise<ResourceClaim>;

/** Where the claim manager keeps its checkpoint (dra_manager_state). */
export interface ClaimCheckpointStore {
  /** The file's text, or undefined when there is none. */
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}
