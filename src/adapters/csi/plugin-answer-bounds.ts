/**
 * What the kubelet takes from a CSI driver or a plugin's registration service in one answer. Go's
 * clients take what gRPC's default receive limit (4 MiB) lets through and walk every entry; here an
 * answer is decoded and walked on the one event loop everything else shares, so a broken or hostile
 * plugin would stall the kubelet. Ours take far less than gRPC's default but far more than any real
 * plugin sends: an answer over a bound fails its own call with an error naming the plugin and the call.
 */
import { KubeletError, type KubeletErrorCode } from '../../domain/errors.js';

/**
 * The receive limit of every plugin client channel. The largest real answers (NodeGetInfo's topology
 * labels, a volume condition's message) come to a few KiB; this is over ten times that, and decoding
 * it whole on the loop stays short, which gRPC's 4 MiB does not.
 */
export const PLUGIN_MAX_ANSWER_BYTES = 64 * 1024;

/** NodeGetCapabilities' entries: CSI 1.x defines seven node capabilities, each listed once. */
export const MAX_NODE_CAPABILITIES = 64;
/** NodeGetVolumeStats' usage entries: CSI defines two units, bytes and inodes. */
export const MAX_VOLUME_USAGE_ENTRIES = 16;
/** NodeGetInfo's topology segments: drivers give a zone, a region, a host; each becomes a Node label. */
export const MAX_TOPOLOGY_SEGMENTS = 64;
/** GetInfo's supported CSI versions: drivers list one to three; each is kept for the driver's lifetime. */
export const MAX_SUPPORTED_VERSIONS = 32;

/** Whose answer to which call, for a refusal: `peer` as the message names it (`CSI driver x.example.com`). */
export interface AnswerOf { code: KubeletErrorCode; peer: string; call: string }

/** Throws the refusal of an answer whose list of `entries` has more than `max` of them. */
export function checkEntries(of: AnswerOf, entries: string, count: number, max: number): void {
  if (count > max) throw new KubeletError(of.code, `${of.peer} answered ${of.call} with ${count} ${entries}, more than the ${max} taken`);
}
