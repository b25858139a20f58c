/**
 * A ConfigMap's or Secret's content as the volume and env code read it: every value as bytes.
 * ConfigMap `data` is UTF-8 text and `binaryData` base64; Secret `data` is base64 and `stringData`
 * (write-only on the API, so only from a manifest) text that wins over `data`, as the API server
 * merges it. Every call decodes afresh, so a caller may keep or change the Buffers it gets.
 */
import type { KeyedData } from '../../domain/volumes/sources.js';
import type { VolumeObject } from '../../ports/apiserver.js';

function decode(into: Record<string, Buffer>, values: Record<string, string> | undefined, encoding: 'utf8' | 'base64'): void {
  for (const [key, value] of Object.entries(values ?? {})) into[key] = Buffer.from(value, encoding);
}

export function configMapData(object: VolumeObject): KeyedData {
  const data: Record<string, Buffer> = {};
  decode(data, object.data, 'utf8');
  decode(data, object.binaryData, 'base64');
  const binaryKeys = Object.keys(object.binaryData ?? {});
  return binaryKeys.length > 0 ? { data, binaryKeys } : { data };
}

export function secretData(object: VolumeObject): KeyedData {
  const data: Record<string, Buffer> = {};
  decode(data, object.data, 'base64');
  decode(data, object.stringData, 'utf8');
  return object.type !== undefined ? { data, type: object.type } : { data };
}
