/**
 * The ConfigMaps and Secrets a container's env and envFrom name, fetched through the managers
 * before its config is made (Go's makeEnvironmentVariables asks the managers as it goes; the domain's
 * builder is synchronous, so the objects are read first and handed to it as a lookup). Values are
 * the objects' bytes as UTF-8, as Go's string conversion.
 */
import type { Container, Pod } from '../../domain/pod/types.js';
import type { EnvSourceLookup } from '../../domain/runtime/env.js';
import type { KeyedData } from '../../domain/volumes/sources.js';
import type { VolumeSources } from '../../ports/volume-sources.js';

function referencedNames(container: Container): { configMaps: Set<string>; secrets: Set<string> } {
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef?.name) configMaps.add(from.configMapRef.name);
    if (from.secretRef?.name) secrets.add(from.secretRef.name);
  }
  for (const e of container.env ?? []) {
    if (e.valueFrom?.configMapKeyRef?.name) configMaps.add(e.valueFrom.configMapKeyRef.name);
    if (e.valueFrom?.secretKeyRef?.name) secrets.add(e.valueFrom.secretKeyRef.name);
  }
  return { configMaps, secrets };
}

/** The text keys only: Go's env reads a ConfigMap's `data`, never its `binaryData`. */
const asStrings = (object: KeyedData | undefined): Record<string, string> | undefined => {
  if (!object) return undefined;
  const binary = new Set(object.binaryKeys ?? []);
  return Object.fromEntries(Object.entries(object.data).filter(([k]) => !binary.has(k)).map(([k, v]) => [k, v.toString('utf8')]));
};

async function readAll(names: Set<string>, read: (name: string) => Promise<KeyedData | undefined>): Promise<Map<string, Record<string, string> | undefined>> {
  return new Map(await Promise.all([...names].map(async (name) => [name, asStrings(await read(name))] as const)));
}

/** The lookup the env builder reads, or undefined when the container refers to no object (nothing is fetched). */
export async function fetchEnvSources(sources: VolumeSources, pod: Pod, container: Container): Promise<EnvSourceLookup | undefined> {
  const names = referencedNames(container);
  if (names.configMaps.size === 0 && names.secrets.size === 0) return undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  sources.registerPod(pod);
  const configMaps = await readAll(names.configMaps, (n) => sources.configMap(namespace, n));
  const secrets = await readAll(names.secrets, (n) => sources.secret(namespace, n));
  return { configMap: (_ns, name) => configMaps.get(name), secret: (_ns, name) => secrets.get(name) };
}
