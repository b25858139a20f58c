/**
 * A container's environment as the Go kubelet builds it (makeEnvironmentVariables), and the
 * `$(VAR)` expansion of command and args (ExpandContainerCommandAndArgs).
 *
 * Order of resolution: envFrom sources, then each `env` entry in order (a literal value is expanded
 * against the variables defined so far, then the service variables), then the service variables not
 * already defined. Go returns the result in map order; we keep definition order, which is stable.
 */
import { KubeletError } from '../errors.js';
import type { Container, EnvVar, Pod } from '../pod/types.js';
import { lookUpEnvFile } from './env-file.js';
import { expand, mappingFor } from './expansion.js';
import { containerResourceValue, podFieldValue, type DownwardApiContext } from './field-ref.js';

/** Reads the API objects env vars may refer to; a missing object is `undefined`. */
export interface EnvSourceLookup {
  configMap(namespace: string, name: string): Record<string, string> | undefined;
  secret(namespace: string, name: string): Record<string, string> | undefined;
}

/**
 * An env file as read for `fileKeyRef`: its node path (the volume's path joined with the file's,
 * kept inside the volume) and its text, or why it could not be read; or no such volume in the pod.
 */
export type EnvFileRead = { path: string; text: string } | { path: string; unreadable: string } | { noVolume: true };

export interface EnvContext extends DownwardApiContext {
  /** Docker-link style service variables (FOO_SERVICE_HOST…) when enableServiceLinks; none by default. */
  serviceEnv?: ReadonlyMap<string, string>;
  lookup?: EnvSourceLookup;
  /** The env files `fileKeyRef` names, read before (EnvFiles on); without it the variable is '', as Go with the gate off. */
  envFiles?: (volumeName: string, path: string) => EnvFileRead;
}

export interface EnvVarValue { name: string; value: string }

function configError(message: string): KubeletError {
  return new KubeletError('KLT_ERR_CONTAINER_CONFIG', message);
}

/**
 * A ConfigMap's or Secret's data for the env, as Go's makeEnvironmentVariables reads it: without an
 * API server (no lookup) Go's "no kubeClient defined" error, even for an optional reference; a
 * missing object is the manager's not-found error unless the reference is optional (undefined).
 */
function readSource(kind: 'configMap' | 'secret', pod: Pod, name: string, optional: boolean, ctx: EnvContext): Record<string, string> | undefined {
  const namespace = pod.metadata.namespace ?? 'default';
  if (!ctx.lookup) throw configError(`couldn't get ${kind} ${namespace}/${name}, no kubeClient defined`);
  const data = kind === 'configMap' ? ctx.lookup.configMap(namespace, name) : ctx.lookup.secret(namespace, name);
  if (data === undefined && !optional) throw configError(`${kind === 'configMap' ? 'configmap' : 'secret'} "${name}" not found`);
  return data;
}

const kindName = { configMap: 'ConfigMap', secret: 'Secret' } as const;

/**
 * A `fileKeyRef`'s value, as Go's makeEnvironmentVariables reads it: undefined to leave the variable
 * out (an optional key not found). Go treats a key assigned '' as not found. Why a file could not be
 * read or parsed is the error's cause (Go logs it); the container's message is Go's.
 */
function envFileValue(ref: NonNullable<NonNullable<EnvVar['valueFrom']>['fileKeyRef']>, ctx: EnvContext): string | undefined {
  if (!ctx.envFiles) return '';
  const volumeName = ref.volumeName ?? '';
  const key = ref.key ?? '';
  const read = ctx.envFiles(volumeName, ref.path ?? '');
  if ('noVolume' in read) throw configError(`cannot find the volume "${volumeName}" referenced by FileKeyRef`);
  const looked = 'text' in read ? lookUpEnvFile(read.text, key) : { error: read.unreadable };
  if ('error' in looked) throw new KubeletError('KLT_ERR_CONTAINER_CONFIG', "couldn't parse env file", { cause: new Error(`${read.path}: ${looked.error}`) });
  const value = looked.found ? looked.value : '';
  if (value !== '') return value;
  if (ref.optional) return undefined;
  throw configError(`environment variable key "${key}" not found in file "${read.path}"`);
}

export function makeEnvironmentVariables(pod: Pod, container: Container, ctx: EnvContext): EnvVarValue[] {
  const serviceEnv = ctx.serviceEnv ?? new Map<string, string>();
  const env = new Map<string, string>();

  for (const from of container.envFrom ?? []) {
    const kind = from.configMapRef ? 'configMap' : from.secretRef ? 'secret' : undefined;
    if (!kind) continue;
    const ref = from.configMapRef ?? from.secretRef;
    const data = readSource(kind, pod, ref?.name ?? '', ref?.optional ?? false, ctx);
    if (!data) continue;
    // Every key is taken as is (names are validated by the API server, relaxed since 1.30).
    for (const [key, value] of Object.entries(data)) env.set((from.prefix ?? '') + key, value);
  }

  for (const entry of container.env ?? []) {
    const mapping = mappingFor(env, serviceEnv);
    let value = entry.value ?? '';
    if (value !== '') {
      value = expand(value, mapping);
    } else if (entry.valueFrom?.fieldRef) {
      value = podFieldValue(entry.valueFrom.fieldRef.fieldPath, pod, ctx);
    } else if (entry.valueFrom?.resourceFieldRef) {
      value = containerResourceValue(entry.valueFrom.resourceFieldRef, pod, container, ctx);
    } else if (entry.valueFrom?.configMapKeyRef || entry.valueFrom?.secretKeyRef) {
      const kind = entry.valueFrom.configMapKeyRef ? 'configMap' : 'secret';
      const ref = entry.valueFrom.configMapKeyRef ?? entry.valueFrom.secretKeyRef;
      const data = readSource(kind, pod, ref?.name ?? '', ref?.optional ?? false, ctx);
      const found = data?.[ref?.key ?? ''];
      if (found === undefined) {
        if (ref?.optional) continue;
        throw configError(`couldn't find key ${ref?.key ?? ''} in ${kindName[kind]} ${pod.metadata.namespace ?? 'default'}/${ref?.name ?? ''}`);
      }
      value = found;
    } else if (entry.valueFrom?.fileKeyRef) {
      const found = envFileValue(entry.valueFrom.fileKeyRef, ctx);
      if (found === undefined) continue;
      value = found;
    }
    env.set(entry.name, value);
  }

  // The service variables (thousands in a namespace of many Services) are appended as they come,
  // not copied into `env` first.
  const vars = [...env].map(([name, value]) => ({ name, value }));
  for (const [name, value] of serviceEnv) {
    if (!env.has(name)) vars.push({ name, value });
  }
  return vars;
}

/** Command and args with `$(VAR)` expanded against the final environment. */
export function expandCommandAndArgs(container: Container, env: EnvVarValue[]): { command?: string[]; args?: string[] } {
  // Looked up by name only once a reference is met: most commands have none.
  let byName: Map<string, string> | undefined;
  const mapping = (name: string) => mappingFor((byName ??= new Map(env.map((e) => [e.name, e.value]))))(name);
  const out: { command?: string[]; args?: string[] } = {};
  if (container.command) out.command = container.command.map((c) => expand(c, mapping));
  if (container.args) out.args = container.args.map((a) => expand(a, mapping));
  return out;
}
