/**
 * The path rules of the API server's pod validation (pkg/apis/core/validation: validatePathNoBacksteps,
 * validateLocalDescendingPath, ValidateLocalNonReservedPath), as field errors in Go's words. Paths
 * are split on '/' (Linux nodes). A NUL is refused too: no system call takes one, and Go's would fail
 * only when the kubelet uses the path (differs from Go, which lets the manifest through).
 */
import { invalid } from './field-errors.js';

/** Whether any '/'-separated element is `..`. */
export const hasBackstep = (path: string): boolean => path.split('/').includes('..');

export function nulErrors(field: string, path: string): string[] {
  return path.includes('\0') ? [invalid(field, path, 'must not contain a NUL character')] : [];
}

/** validatePathNoBacksteps: one error, however many `..` there are. */
export function noBackstepErrors(field: string, path: string): string[] {
  return hasBackstep(path) ? [invalid(field, path, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, and no `..` element. */
export function localDescendingPathErrors(field: string, path: string): string[] {
  const errors = path.startsWith('/') ? [invalid(field, path, 'must be a relative path')] : [];
  return [...errors, ...noBackstepErrors(field, path), ...nulErrors(field, path)];
}

/**
 * ValidateLocalNonReservedPath: a local descending path that does not start with `..` either (the
 * atomic writer's own names, `..data` and its timestamped directories, start so).
 */
export function localNonReservedPathErrors(field: string, path: string): string[] {
  const errors = localDescendingPathErrors(field, path);
  // Not reported again when the `..` element check above caught it.
  if (path.startsWith('..') && !path.startsWith('../')) errors.push(invalid(field, path, "must not start with '..'"));
  return errors;
}
