/** Kubernetes name syntax (k8s.io/apimachinery/pkg/util/validation) that config validation needs. */
import { DNS1123_SUBDOMAIN } from '../names/dns1123.js';

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** IsQualifiedName: `[prefix/]name`; returns the problems (empty when valid). */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix === '') errs.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      errs.push("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
    }
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'"];
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name !== '' && !NAME_PART.test(name)) {
    errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return errs;
}

/** IsValidLabelValue: empty, or up to 63 name characters. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (value !== '' && !NAME_PART.test(value)) {
    errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return errs;
}

/** cpuset.Parse: `0-3,5,7-8`; returns an error text or undefined. */
export function cpuSetError(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  for (const range of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(range.trim());
    if (m === null) return `invalid range ${JSON.stringify(range)}`;
    if (m[2] !== undefined && Number(m[2]) < Number(m[1])) return `invalid range ${JSON.stringify(range)} (${m[1]} > ${m[2]})`;
  }
  return undefined;
}
