/**
 * A secret volume's content (Go: pkg/volume/secret, SetUpAt and MakePayload): the decoded values,
 * all keys or the listed items.
 */
import { keyedPayload, type KeyedKind } from './keyed-payload.js';
import type { KeyedData, Payload, SecretVolumeSource } from './sources.js';

const secretKind: KeyedKind = {
  kind: 'secret',
  missingKeyMessage: (key) => `references non-existent secret key: ${key}`,
};

/**
 * The payload of a secret volume (or a projection of one, with the projected volume's defaultMode
 * filled in). `secret` undefined: the object does not exist. Throws KubeletError:
 * KLT_ERR_API_NOT_FOUND (object or key missing and not optional), KLT_ERR_POD_SPEC_INVALID (a path).
 */
export function secretPayload(source: SecretVolumeSource, secret: KeyedData | undefined): Payload {
  return keyedPayload(secretKind, source.secretName ?? '', source, secret);
}
