/**
 * The rules a payload's relative paths obey (Go: pkg/volume/util/atomic_writer.go, validatePath and
 * the filepath.Clean the writer keys its payload by). The atomic writer owns the names starting with
 * `..` (`..data`, `..data_tmp`, the timestamped directories), so no payload path may start with one.
 */
import { KubeletError } from '../errors.js';

const maxPathBytes = 4096;
const maxNameBytes = 255;
/** One path element of ASCII letters, digits, `-`, `_` and `.` (one byte each). */
const plainNamePattern = /^[-._a-zA-Z0-9]+$/;

/** Go's validatePath: the problem with a payload path, in Go's words, or undefined when it is fine. */
export function payloadPathError(path: string): string | undefined {
  if (path === '') return 'invalid path: must not be empty: ""';
  if (path.startsWith('/')) return `invalid path: must be relative path: ${path}`;
  if (Buffer.byteLength(path) > maxPathBytes) return `invalid path: must be less than or equal to ${maxPathBytes} characters`;
  const elements = path.split('/');
  for (const element of elements) {
    if (element === '..') return `invalid path: must not contain '..': ${path}`;
    if (Buffer.byteLength(element) > maxNameBytes) return `invalid path: filenames must be less than or equal to ${maxNameBytes} characters`;
  }
  const first = elements[0] ?? '';
  if (first.startsWith('..') && first.length > 2) return `invalid path: must not start with '..': ${path}`;
  return undefined;
}

/** Go's filepath.Clean for a relative path without `..`: no empty or `.` elements, no trailing slash. */
export function cleanPayloadPath(path: string): string {
  const kept = path.split('/').filter((element) => element !== '' && element !== '.');
  return kept.length === 0 ? '.' : kept.join('/');
}

/**
 * The path a payload file is kept under: validated as Go does, then cleaned. The cleaned form is
 * checked again (Go checks only the raw one, so `./..data` would slip through) and must name a file.
 */
export function checkedPayloadPath(path: string): string {
  // A plain file name (what a ConfigMap or Secret key is) is its own clean form: a volume of
  // 40,000 keys is checked without splitting, cleaning and measuring each one three times.
  if (path.length <= maxNameBytes && plainNamePattern.test(path) && !path.startsWith('..') && path !== '.') return path;
  const clean = cleanPayloadPath(path);
  const problem = payloadPathError(path) ?? payloadPathError(clean) ?? (clean === '.' ? `invalid path: must name a file: ${path}` : undefined);
  if (problem !== undefined) throw new KubeletError('KLT_ERR_POD_SPEC_INVALID', problem);
  return clean;
}
