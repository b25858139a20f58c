/**
 * A configMap volume's content (Go: pkg/volume/configmap, SetUpAt and MakePayload): data and
 * binaryData keys alike, all of them or the listed items.
 */
import { keyedPayload, type KeyedKind } from './keyed-payload.js';
import type { ConfigMapVolumeSource, KeyedData, Payload } from './sources.js';

const configMapKind: KeyedKind = {
  kind: 'configmap',
  missingKeyMessage: (key) => `configmap references non-existent config key: ${key}`,
};

/**
 * The payload of a configMap volume (or a projection of one, with the projected volume's
 * defaultMode filled in). `configMap` undefined: the object does not exist. Throws KubeletError:
 * KLT_ERR_API_NOT_FOUND (object or key missing and not optional), KLT_ERR_POD_SPEC_INVALID (a path).
 */
export function configMapPayload(source: ConfigMapVolumeSource, configMap: KeyedData | undefined): Payload {
  return keyedPayload(configMapKind, source.name ?? '', source, configMap);
}
