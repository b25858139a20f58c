/**
 * The write rules of the ConfigMap and Secret registries that a kubelet can observe (Go's v1
 * conversion, defaulting and ValidateConfigMapUpdate / ValidateSecretUpdate), run on every create
 * and update:
 *
 * - a Secret's `stringData` is write-only: each entry is put into `data` as base64, over a `data`
 *   key of the same name, and `stringData` is never stored nor returned (the v1→internal conversion);
 * - a Secret's `type` defaults to Opaque and cannot change afterwards;
 * - Secret `data` and ConfigMap `binaryData` must be standard base64 (400, as the JSON decoder
 *   answers); they are stored re-encoded, and every map with its keys sorted, as Go marshals maps;
 * - once `immutable: true`, data, binaryData and immutable itself cannot change (422 Invalid).
 *
 * Not modelled: key name validation, the 1 MiB size limit, a key in both data and binaryData, and
 * the keys each Secret type requires (kubernetes.io/tls needs tls.crt and tls.key, …).
 */
import { invalidObject, type FieldError } from './field-errors.js';
import { isObject } from './json.js';
import type { KubeObject } from './resources.js';
import { apiErrors } from './status.js';

const IMMUTABLE_DETAIL = 'field is immutable when `immutable` is set';
const BASE64_CHAR = /[A-Za-z0-9+/]/;

/**
 * Where Go's base64.StdEncoding stops reading `text` (CR and LF removed), or undefined when it is
 * valid: a character outside the alphabet, misplaced padding, or the start of an unfinished quantum.
 */
function base64ErrorOffset(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '=') {
      const padding = i % 4 === 2 ? '==' : '=';
      if (i % 4 < 2) return i;
      const rest = text.slice(i);
      if (rest === padding) return undefined;
      return rest.startsWith(padding) ? i + padding.length : i;
    }
    if (!BASE64_CHAR.test(c)) return i;
  }
  return text.length % 4 === 0 ? undefined : text.length - (text.length % 4);
}

function undecodable(kind: string, why: string) {
  return apiErrors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
}

/** A string map field as Go's decoder reads it (a JSON object of strings), or undefined when absent. */
function stringMap(obj: KubeObject, field: string, kind: string): Record<string, string> | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw undecodable(kind, `json: cannot unmarshal ${typeof value} into Go struct field ${kind}.${field} of type map[string]`);
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw undecodable(kind, `json: cannot unmarshal ${typeof v} into Go struct field ${kind}.${field} of type string (key ${key})`);
  }
  return value as Record<string, string>;
}

function decodeBytesMap(map: Record<string, string> | undefined, kind: string): Map<string, Buffer> {
  const bytes = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(map ?? {})) {
    const text = value.replace(/[\r\n]/g, '');
    const offset = base64ErrorOffset(text);
    if (offset !== undefined) throw undecodable(kind, `illegal base64 data at input byte ${offset}`);
    bytes.set(key, Buffer.from(text, 'base64'));
  }
  return bytes;
}

/** Sets `obj[field]` to `entries` with sorted keys, or removes it when empty (Go's omitempty). */
function setSorted(obj: KubeObject, field: string, entries: Iterable<[string, string]>): void {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (sorted.length === 0) delete obj[field];
  else obj[field] = Object.fromEntries(sorted);
}

function sameMap(a: unknown, b: unknown): boolean {
  const entries = (m: unknown) => Object.entries(isObject(m) ? m : {}).sort(([x], [y]) => (x < y ? -1 : 1));
  return JSON.stringify(entries(a)) === JSON.stringify(entries(b));
}

/** Go's immutability checks, for the fields the kind has. */
function immutableErrors(obj: KubeObject, old: KubeObject, fields: readonly string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errors: FieldError[] = [];
  if (obj.immutable !== true) errors.push({ type: 'Forbidden', field: 'immutable', detail: IMMUTABLE_DETAIL });
  for (const field of fields) {
    if (!sameMap(obj[field], old[field])) errors.push({ type: 'Forbidden', field, detail: IMMUTABLE_DETAIL });
  }
  return errors;
}

export function prepareConfigMapWrite(cm: KubeObject, old: KubeObject | undefined): void {
  setSorted(cm, 'data', Object.entries(stringMap(cm, 'data', 'ConfigMap') ?? {}));
  const binary = decodeBytesMap(stringMap(cm, 'binaryData', 'ConfigMap'), 'ConfigMap');
  setSorted(cm, 'binaryData', [...binary].map(([key, bytes]) => [key, bytes.toString('base64')]));
  const errors = old === undefined ? [] : immutableErrors(cm, old, ['data', 'binaryData']);
  if (errors.length > 0) throw invalidObject('', 'ConfigMap', cm.metadata?.name ?? '', errors);
}

export function prepareSecretWrite(secret: KubeObject, old: KubeObject | undefined): void {
  const data = decodeBytesMap(stringMap(secret, 'data', 'Secret'), 'Secret');
  for (const [key, value] of Object.entries(stringMap(secret, 'stringData', 'Secret') ?? {})) data.set(key, Buffer.from(value, 'utf8'));
  delete secret.stringData;
  setSorted(secret, 'data', [...data].map(([key, bytes]) => [key, bytes.toString('base64')]));
  if (typeof secret.type !== 'string' || secret.type === '') secret.type = 'Opaque';
  if (old === undefined) return;
  const errors: FieldError[] = [];
  if (secret.type !== old.type) errors.push({ type: 'Invalid', field: 'type', value: secret.type as string, detail: 'field is immutable' });
  errors.push(...immutableErrors(secret, old, ['data']));
  if (errors.length > 0) throw invalidObject('', 'Secret', secret.metadata?.name ?? '', errors);
}
