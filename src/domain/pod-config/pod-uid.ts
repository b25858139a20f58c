/**
 * Which pod UIDs the kubelet takes, from any source. The UID names the pod's directory
 * (`<root>/pods/<uid>`) and is part of its log directory and of actor ids, so it must be one safe
 * path segment. Go takes any UID and relies on the API server (which only makes RFC 4122 UUIDs) or,
 * for a static pod, on the manifest's author; a UID of `../x` then names a directory outside the
 * root. The rule here is the charset real UIDs use (UUIDs, the 32 hex digits of a static pod's
 * hash) with room for a person's own names: letters, digits, '-', '_' and '.', starting with a
 * letter or digit (so never empty, `.`, `..` or hidden), at most 128 characters. No '/', no NUL,
 * no ':' (the separator of actor ids), no white space. Differs from Go, which refuses none.
 */
import { invalid } from './field-errors.js';

export const POD_UID_MAX_LENGTH = 128;

const SAFE_UID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const POD_UID_MESSAGE = `must be a single path segment of at most ${POD_UID_MAX_LENGTH} characters: letters, digits, '-', '_' or '.', starting with a letter or digit (the kubelet names the pod's directory after it)`;

export function isSafePodUid(uid: unknown): uid is string {
  return typeof uid === 'string' && uid.length <= POD_UID_MAX_LENGTH && SAFE_UID.test(uid);
}

/** The field error for an unsafe UID (`metadata.uid: Invalid value: …`), or undefined when it is safe. */
export function podUidError(uid: unknown): string | undefined {
  return isSafePodUid(uid) ? undefined : invalid('metadata.uid', uid ?? '', POD_UID_MESSAGE);
}
