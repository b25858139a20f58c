/**
 * What the kubelet takes from a DRA plugin in one answer. Go takes what gRPC's default receive limit
 * (4 MiB) lets through; here an answer is decoded and walked on the event loop everything else
 * shares (../csi/plugin-answer-bounds.ts says why that matters). The bounds are far above what the
 * resource API lets a claim have, so only a broken or hostile plugin meets them.
 */

/**
 * The receive limit of a DRA plugin's channel. A pod's claims of one driver, each with at most 32
 * devices (the API's AllocationResultsMaxSize) and their CDI IDs, come to tens of KiB in a large
 * case; an answer's decoding stays short on the loop at this size.
 */
export const DRA_MAX_ANSWER_BYTES = 256 * 1024;

/** Devices of one claim: a claim's allocation has at most 32 results, each one device. */
export const MAX_DEVICES_PER_CLAIM = 128;
/** Request names of one device: a claim has at most 32 requests. */
export const MAX_REQUEST_NAMES_PER_DEVICE = 64;
/** CDI IDs of one device: drivers give one or two. */
export const MAX_CDI_IDS_PER_DEVICE = 32;
