/**
 * Go's field.Error texts (k8s.io/apimachinery/pkg/util/validation/field), `<field path>: <type>…`,
 * so a refused manifest reads as the API server would have refused it. A string value is quoted
 * (Go's %q), any other value written as it is.
 */
import { DNS1123_LABEL } from '../names/dns1123.js';

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : String(value));

export const required = (path: string, detail = ''): string => `${path}: Required value${detail ? `: ${detail}` : ''}`;
export const invalid = (path: string, value: unknown, detail: string): string => invalidShown(path, shown(value), detail);
/** Invalid with the value already written out: a struct, which Go prints with %#v. */
export const invalidShown = (path: string, value: string, detail: string): string => `${path}: Invalid value: ${value}: ${detail}`;
export const duplicate = (path: string, value: unknown): string => `${path}: Duplicate value: ${shown(value)}`;
export const notFound = (path: string, value: unknown): string => `${path}: Not found: ${shown(value)}`;
export const forbidden = (path: string, detail: string): string => `${path}: Forbidden: ${detail}`;
export const notSupported = (path: string, value: unknown, supported: readonly string[]): string =>
  `${path}: Unsupported value: ${shown(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`;

/** IsDNS1123Label's regex message (Go's RegexError, examples and spacing included). */
export const DNS1123_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** Go's ValidateDNS1123Label: both problems of a name, its length and its form. */
export function dnsLabelErrors(path: string, value: string): string[] {
  const errors = value.length > 63 ? [invalid(path, value, 'must be no more than 63 characters')] : [];
  if (!DNS1123_LABEL.test(value)) errors.push(invalid(path, value, DNS1123_LABEL_MESSAGE));
  return errors;
}

/** Go's InclusiveRangeError. */
export const inclusiveRange = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;
