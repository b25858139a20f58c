/**
 * The size bounds of the state files the kubelet reads at start-up. Each file is read whole, parsed
 * and checksummed before it can be refused, so a file far larger than any real one would hold the
 * loop and the memory for seconds; one over its bound is refused by its size, before it is read.
 * Each bound is what a node running far more pods than any real one would write, with room to spare.
 */

/** Pods sized for: above any real node's maxPods (110 by default; 250 on AKS, 256 on GKE, 737 on EKS's largest). */
export const STATE_FILE_PODS = 1_024;
/** Containers of one pod, init containers and sidecars included: real pods have a handful. */
export const STATE_FILE_CONTAINERS_PER_POD = 16;
/** A pod's key in a file: its uid (36 characters) quoted, with the punctuation around it. */
const POD_KEY_BYTES = 48;
/** What a file holds besides its pods (the memory manager's machine state: up to 64 NUMA nodes of 1 KiB). */
const FILE_HEAD_BYTES = 64 * 1024;

const sizedFor = (bytesPerContainer: number) =>
  FILE_HEAD_BYTES + STATE_FILE_PODS * (POD_KEY_BYTES + STATE_FILE_CONTAINERS_PER_POD * bytesPerContainer);

/**
 * CPUs sized for: above the largest machines (8 sockets of 96 cores, two threads each, are 1,536).
 * Only containers holding exclusive CPUs have an entry in cpu_manager_state, each at least one CPU.
 */
export const STATE_FILE_CPUS = 2_048;
/** A cpu_manager_state entry: its pod's key, a container's name (at most 63) and its CPU set's text (ranges; 200 for a scattered set). */
const CPU_ENTRY_BYTES = POD_KEY_BYTES + 256;

/** cpu_manager_state: one entry per CPU at most. */
export const CPU_MANAGER_STATE_MAX_BYTES = FILE_HEAD_BYTES + STATE_FILE_CPUS * CPU_ENTRY_BYTES;
/** memory_manager_state: a container's name and its blocks (memory and two hugepage sizes, each with its NUMA nodes). */
export const MEMORY_MANAGER_STATE_MAX_BYTES = sizedFor(512);
/** allocated_pods_state and actuated_pods_state: a container's name and its requests and limits by resource. */
export const POD_RESOURCES_STATE_MAX_BYTES = sizedFor(512);

/** A claim in dra_manager_state: its uid, name and namespace, the pods sharing it, its devices with their CDI ids. */
const DRA_CLAIM_BYTES = 4 * 1024;
/** dra_manager_state: a few claims a pod at most. */
export const DRA_MANAGER_STATE_MAX_BYTES = FILE_HEAD_BYTES + STATE_FILE_PODS * 4 * DRA_CLAIM_BYTES;
