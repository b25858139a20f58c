/**
 * One static pod manifest's text to its pod, or to the reason it was rejected: parsed (YAML or JSON)
 * then decoded and validated as the file source does. Pure, so it can run on any thread.
 */
import type { PodFromOrigin } from '../../domain/pod-config/duplicates.js';
import { decodeStaticPod } from '../../domain/pod-config/static-pod.js';
import type { RejectedManifest } from '../../domain/pod-config/types.js';
import { parseManifestText } from './parse-manifest.js';

export type DecodedManifest = PodFromOrigin | RejectedManifest;

/** How a file source decodes a manifest: inline, or on a worker thread for large ones. */
export type ManifestDecoder = (file: string, text: string, nodeName: string) => Promise<DecodedManifest>;

export function decodeManifestText(file: string, text: string, nodeName: string): DecodedManifest {
  const parsed = parseManifestText(text);
  if (!parsed.ok) return { origin: file, reason: parsed.reason };
  const decoded = decodeStaticPod(parsed.doc, { source: 'file', origin: file, nodeName });
  if (!decoded.ok) return { origin: file, reason: decoded.reason };
  return { origin: file, pod: decoded.value };
}

/** decodeManifestText on the calling thread. */
export const decodeManifestInline: ManifestDecoder = async (file, text, nodeName) => decodeManifestText(file, text, nodeName);
