/**
 * Image pull decisions (pkg/kubelet/images image_manager.go EnsureImageExists / shouldPullImage,
 * applyDefaultImageTag, and the API server's imagePullPolicy default).
 *
 * The runtime manager asks ImageStatus first and pulls only when this says so: containerd's
 * PullImage always contacts the registry, so IfNotPresent must never reach it for a present image.
 */
import { KubeletError } from '../errors.js';
import type { Container, PullPolicy } from '../pod/types.js';

export interface ImageReference { name: string; tag?: string; digest?: string }

// A conservative form of the docker reference grammar: lowercase path components, an optional
// registry host (which may carry a port and uppercase), an optional tag and digest.
const referencePattern = /^(?:([a-zA-Z0-9.-]+(?::\d+)?)\/)?([a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$/;

export function parseImageReference(image: string): ImageReference {
  const match = referencePattern.exec(image);
  if (!match) throw new KubeletError('KLT_ERR_IMAGE_NAME_INVALID', `couldn't parse image name ${JSON.stringify(image)}`);
  const [, host, path = '', tag, digest] = match;
  const ref: ImageReference = { name: host ? `${host}/${path}` : path };
  if (tag !== undefined) ref.tag = tag;
  if (digest !== undefined) ref.digest = digest;
  return ref;
}

/** ":latest" appended when the image names neither a tag nor a digest. */
export function applyDefaultImageTag(image: string): string {
  const ref = parseImageReference(image);
  return ref.tag === undefined && ref.digest === undefined ? `${image}:latest` : image;
}

/** SetDefaults_Container: `:latest` or no tag (and no digest) → Always, anything else → IfNotPresent. */
export function defaultPullPolicy(image: string): PullPolicy {
  let ref: ImageReference;
  try {
    ref = parseImageReference(image);
  } catch {
    return 'IfNotPresent'; // invalid names fail later, at EnsureImageExists, as in Go
  }
  const tag = ref.tag ?? (ref.digest === undefined ? 'latest' : undefined);
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

export function effectivePullPolicy(container: Container): PullPolicy {
  return container.imagePullPolicy ?? defaultPullPolicy(container.image);
}

export function shouldPullImage(policy: PullPolicy, present: boolean): boolean {
  if (policy === 'Never') return false;
  return policy === 'Always' || !present;
}
