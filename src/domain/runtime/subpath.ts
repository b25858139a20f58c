/**
 * A volume mount's subPath and subPathExpr, the pure parts: the checks the API server makes on
 * them (pkg/apis/core/validation: ValidateVolumeMounts, validateLocalDescendingPath) and the ones
 * the kubelet makes again before it mounts (kubelet_pods.go makeMounts,
 * container/helpers.go ExpandContainerVolumeMounts, volume/validation ValidatePathNoBacksteps).
 *
 * subPathExpr is expanded like command and args (`$(VAR)`, `$$` escapes), but only against the
 * container's own final environment, and a reference to a variable that is unset or empty is an
 * error rather than kept literally. The result must still be relative and free of `..`: an
 * expansion is checked after it is made, not only as written.
 *
 * Resolving the path on the node (symlinks, creating a missing directory) is the adapter's:
 * src/adapters/fs/subpath-resolver.ts.
 */
import { KubeletError } from '../errors.js';
import type { VolumeMount } from '../pod/types.js';
import type { EnvVarValue } from './env.js';
import { expand } from './expansion.js';
import { invalid } from '../pod-config/field-errors.js';
import { hasBackstep, localDescendingPathErrors } from '../pod-config/local-paths.js';

/** An absolute path (Linux: it starts with '/'). */
const isAbsolute = (path: string) => path.startsWith('/');

/**
 * The API server's checks of one mount, as field errors. `listField` is the mounts' field path
 * (`spec.containers[0].volumeMounts`). Go names the subPath and subPathExpr errors under the list
 * (`…volumeMounts.subPath`) and only the exclusivity error under the item (`…volumeMounts[2].subPathExpr`);
 * the field names here are Go's, quirk included.
 */
export function validateVolumeMountSubPath(mount: VolumeMount, listField: string, index: number): string[] {
  const errors: string[] = [];
  if (mount.subPath) errors.push(...localDescendingPathErrors(`${listField}.subPath`, mount.subPath));
  if (mount.subPathExpr) {
    if (mount.subPath) errors.push(invalid(`${listField}[${index}].subPathExpr`, mount.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
    errors.push(...localDescendingPathErrors(`${listField}.subPathExpr`, mount.subPathExpr));
  }
  return errors;
}

const configError = (message: string) => new KubeletError('KLT_ERR_CONTAINER_CONFIG', message);

/**
 * subPathExpr with `$(VAR)` replaced from the container's environment (the last definition of a
 * name wins, as in Go's map). Every unset or empty variable referred to is an error, named in
 * sorted order: `missing value for A, B`.
 */
export function expandSubPathExpr(subPathExpr: string, env: readonly EnvVarValue[]): string {
  const values = new Map(env.map((e) => [e.name, e.value]));
  const missing = new Set<string>();
  const expanded = expand(subPathExpr, (name) => {
    const value = values.get(name);
    if (!value) missing.add(name);
    return value ?? '';
  });
  if (missing.size > 0) throw configError(`missing value for ${[...missing].sort().join(', ')}`);
  return expanded;
}

/**
 * The subpath the kubelet mounts for one volume mount, '' when none: subPath as written, or
 * subPathExpr expanded. Refused (KLT_ERR_CONTAINER_CONFIG, Go's texts): an absolute result, a
 * result with a `..` element, and, unlike Go's kubelet (which lets subPathExpr win, trusting the
 * API server to have refused the pair), both fields set, since a static pod never met the API
 * server.
 */
export function containerSubPath(mount: VolumeMount, env: readonly EnvVarValue[]): string {
  if (mount.subPath && mount.subPathExpr) throw configError('subPathExpr and subPath are mutually exclusive');
  const subPath = mount.subPathExpr ? expandSubPathExpr(mount.subPathExpr, env) : mount.subPath ?? '';
  if (subPath === '') return '';
  if (isAbsolute(subPath)) throw configError(`error SubPath \`${subPath}\` must not be an absolute path`);
  if (hasBackstep(subPath)) throw configError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
  return subPath;
}
