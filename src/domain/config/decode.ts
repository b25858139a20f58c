/**
 * Decoding of a parsed KubeletConfiguration document (YAML or JSON already turned into plain data),
 * as the Go kubelet's codec does: apiVersion and kind must name v1beta1 KubeletConfiguration and
 * every value must have the field's type, or it is an error naming the field. An unknown field fails
 * only Go's strict decoding, which then decodes the file again leniently, dropping the field: it is
 * left out and named in `unknownFields`, for the caller to warn of. Duplicate keys are the parser's
 * (the adapter's), before this point.
 *
 * Deliberate normalisation: durations come out in Go's spelling (`60s` → `1m0s`), like a Go
 * round trip would print them; JSON null on a non-pointer field is dropped (Go ignores it).
 */
import { normalizeGoDuration, formatGoDuration } from './duration.js';
import { isQuantity } from '../resources/quantity.js';
import { KUBELET_CONFIGURATION_SCHEMA, type FieldSpec } from './schema.js';
import {
  KUBELET_CONFIG_API_VERSION,
  KUBELET_CONFIG_KIND,
  type FieldError,
  type KubeletConfigurationDocument,
} from './types.js';

const INT_RANGE: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export interface DecodedKubeletConfiguration {
  doc: KubeletConfigurationDocument;
  errors: FieldError[];
  /** The unknown fields left out, by their path (`authentication.anonymous.enable`): strict decoding's errors only. */
  unknownFields: string[];
}

export function decodeKubeletConfiguration(raw: unknown): DecodedKubeletConfiguration {
  const errors: FieldError[] = [];
  const unknownFields: string[] = [];
  if (!isPlainObject(raw)) {
    errors.push({ field: '', value: raw, message: 'the configuration must be an object with apiVersion and kind' });
    return { doc: {}, errors, unknownFields };
  }
  const { apiVersion, kind, ...fields } = raw;
  if (kind === undefined || kind === '') {
    errors.push({ field: 'kind', value: kind, message: `Object 'Kind' is missing (expected ${KUBELET_CONFIG_KIND})` });
  } else if (kind !== KUBELET_CONFIG_KIND) {
    errors.push({ field: 'kind', value: kind, message: `unsupported kind, expected ${KUBELET_CONFIG_KIND}` });
  }
  if (apiVersion === undefined || apiVersion === '') {
    errors.push({ field: 'apiVersion', value: apiVersion, message: `apiVersion is missing (expected ${KUBELET_CONFIG_API_VERSION})` });
  } else if (apiVersion !== KUBELET_CONFIG_API_VERSION) {
    errors.push({
      field: 'apiVersion',
      value: apiVersion,
      message: `no kind "${KUBELET_CONFIG_KIND}" is registered for version "${String(apiVersion)}", expected ${KUBELET_CONFIG_API_VERSION}`,
    });
  }
  const doc = decodeObject(fields, KUBELET_CONFIGURATION_SCHEMA, '', { errors, unknownFields });
  return { doc: { apiVersion: KUBELET_CONFIG_API_VERSION, kind: KUBELET_CONFIG_KIND, ...doc } as KubeletConfigurationDocument, errors, unknownFields };
}

/** Where decoding puts what it finds wrong: errors, and the unknown fields it drops. */
interface Findings {
  errors: FieldError[];
  unknownFields: string[];
}

function decodeObject(raw: Record<string, unknown>, fields: Record<string, FieldSpec>, prefix: string, found: Findings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const spec = fields[name];
    if (spec === undefined) {
      found.unknownFields.push(path);
      continue;
    }
    if (value === null) {
      // A Go pointer decodes null as nil (unset); any other field ignores a null.
      if (spec.nullable) out[name] = null;
      continue;
    }
    const decoded = decodeValue(value, spec, path, found);
    if (decoded !== undefined) out[name] = decoded;
  }
  return out;
}

function decodeValue(value: unknown, spec: FieldSpec, path: string, found: Findings): unknown {
  const { errors } = found;
  const wrongType = (expected: string): undefined => {
    errors.push({ field: path, value, message: `cannot unmarshal ${describe(value)} into field "${path}" of type ${expected}` });
    return undefined;
  };
  switch (spec.kind) {
    case 'string':
      return typeof value === 'string' ? value : wrongType('string');
    case 'quantity':
      if (typeof value === 'number' && Number.isFinite(value)) return String(value);
      if (typeof value !== 'string') return wrongType('quantity');
      if (!isQuantity(value)) {
        errors.push({ field: path, value, message: `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'` });
        return undefined;
      }
      return value;
    case 'bool':
      return typeof value === 'boolean' ? value : wrongType('bool');
    case 'int32':
    case 'int64':
    case 'uint32': {
      const [min, max] = INT_RANGE[spec.kind] ?? [0, 0];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) return wrongType(spec.kind);
      return value;
    }
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? value : wrongType('float64');
    case 'duration':
      // component-base's TimeOrMetaDuration (logging.flushFrequency) also takes integer nanoseconds.
      if (typeof value === 'number' && Number.isInteger(value) && path === 'logging.flushFrequency') return formatGoDuration(value / 1e6);
      if (typeof value !== 'string') return wrongType('duration');
      try {
        return normalizeGoDuration(value);
      } catch (err) {
        errors.push({ field: path, value, message: (err as Error).message });
        return undefined;
      }
    case 'stringMap':
      return decodeMap(value, path, errors, (v) => typeof v === 'string', 'string');
    case 'boolMap':
      return decodeMap(value, path, errors, (v) => typeof v === 'boolean', 'bool');
    case 'stringListMap':
      return decodeMap(value, path, errors, (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'), '[]string');
    case 'stringList':
      return Array.isArray(value) && value.every((s) => typeof s === 'string') ? [...(value as string[])] : wrongType('[]string');
    case 'int32List':
      return Array.isArray(value) && value.every((n) => typeof n === 'number' && Number.isInteger(n)) ? [...(value as number[])] : wrongType('[]int32');
    case 'object':
      return isPlainObject(value) ? decodeObject(value, spec.fields ?? {}, path, found) : wrongType('object');
    case 'objectList': {
      if (!Array.isArray(value)) return wrongType('list');
      // An item that is not an object, or lacks a required member, is reported and left out: what
      // validates the list after decoding may then rely on every item's shape.
      return value.flatMap((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (!isPlainObject(item)) {
          errors.push({ field: itemPath, value: item, message: `cannot unmarshal ${describe(item)} into a list item of "${path}"` });
          return [];
        }
        const missing = (spec.required ?? []).filter((name) => item[name] === undefined);
        for (const name of missing) errors.push({ field: `${itemPath}.${name}`, value: undefined, message: 'Required value' });
        const decoded = decodeObject(item, spec.fields ?? {}, itemPath, found);
        return missing.length > 0 ? [] : [decoded];
      });
    }
  }
}

function decodeMap(
  value: unknown,
  path: string,
  errors: FieldError[],
  ok: (v: unknown) => boolean,
  valueType: string,
): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) {
    errors.push({ field: path, value, message: `cannot unmarshal ${describe(value)} into field "${path}" of type map[string]${valueType}` });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!ok(v)) {
      errors.push({ field: `${path}.${key}`, value: v, message: `cannot unmarshal ${describe(v)} into a map value of type ${valueType}` });
      continue;
    }
    out[key] = Array.isArray(v) ? [...(v as unknown[])] : v;
  }
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'number') return `number ${value}`;
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return typeof value;
}
