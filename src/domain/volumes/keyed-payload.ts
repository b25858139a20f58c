/**
 * What the ConfigMap and Secret plugins share (Go: configmap.MakePayload and secret.MakePayload,
 * which differ only in words): every key as a file named after it, or only the listed items, each
 * at its path with its own mode or the volume's default.
 */
import { KubeletError } from '../errors.js';
import { checkedPayloadPath } from './payload-path.js';
import type { KeyToPath, KeyedData, Payload } from './sources.js';
import { objectNotFound } from './volume-errors.js';

/** The mode API defaulting gives a ConfigMap, Secret, downward API or projected volume's files. */
export const defaultVolumeFileMode = 0o644;

export interface KeyedPayloadSource {
  items?: KeyToPath[];
  defaultMode?: number;
  optional?: boolean;
}

export interface KeyedKind {
  /** As the managers name it in "not found": `configmap`, `secret`. */
  kind: 'configmap' | 'secret';
  /** Go's error for an item whose key the object lacks. */
  missingKeyMessage: (key: string) => string;
}

/**
 * The payload of one ConfigMap or Secret. `object` undefined: it does not exist, an error unless the
 * source is optional (then it reads as an object without keys). An item whose key is missing is an
 * error unless the source is optional (then the item is skipped).
 */
export function keyedPayload(what: KeyedKind, name: string, source: KeyedPayloadSource, object: KeyedData | undefined): Payload {
  const optional = source.optional === true;
  if (object === undefined && !optional) throw objectNotFound(what.kind, name);
  const data = object?.data ?? {};
  const defaultMode = source.defaultMode ?? defaultVolumeFileMode;
  const payload: Payload = new Map();
  const items = source.items ?? [];

  if (items.length === 0) {
    // Sorted so the payload is the same whatever order the object's keys came in.
    for (const key of Object.keys(data).sort()) {
      const path = checkedPayloadPath(key);
      payload.set(path, { path, content: data[key] ?? Buffer.alloc(0), mode: defaultMode });
    }
    return payload;
  }

  for (const item of items) {
    const content = Object.hasOwn(data, item.key) ? data[item.key] : undefined;
    if (content === undefined) {
      if (optional) continue;
      throw new KubeletError('KLT_ERR_API_NOT_FOUND', what.missingKeyMessage(item.key), { retryable: true });
    }
    const path = checkedPayloadPath(item.path);
    payload.set(path, { path, content, mode: item.mode ?? defaultMode });
  }
  return payload;
}
