/**
 * The ids of actors made per pod, volume, container probe or pod directory (`pod:<uid>`,
 * `volume:<uid>:<name>`, `probe:<uid>:<container>:<type>`, `podDirectory:<uid>`), also their system
 * ids. Each part is percent-encoded (encodeURIComponent) before the parts are joined with `:`, so no
 * part can carry the separator: pod `u1` with volume `a:b` and pod `u1:a` with volume `b` get two
 * ids, where joining them as written gave one, and XState refuses a second actor with a system id
 * in use by throwing. The uids and names the API allows encode to themselves, so ids read as before.
 */
const encodePart = (part: string): string => encodeURIComponent(part);

/** `<kind>:<part>:<part>…`, each part encoded; its type keeps the kind, so typed sends know the actor. */
export function actorId<K extends string>(kind: K, first: string, ...rest: readonly string[]): `${K}:${string}` {
  return `${kind}:${[first, ...rest].map(encodePart).join(':')}`;
}

/** The decoded parts of an id made by actorId with this kind, or null for any other id. */
export function actorIdParts(id: string, kind: string): string[] | null {
  if (!id.startsWith(`${kind}:`)) return null;
  try {
    return id.slice(kind.length + 1).split(':').map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** The pod worker of a pod, under the syncLoop. */
export const podWorkerId = (podUid: string): `pod:${string}` => actorId('pod', podUid);

/** A volume's actor under the volume manager. */
export const volumeActorId = (podUid: string, volumeName: string): `volume:${string}` => actorId('volume', podUid, volumeName);

/** A container probe's worker under the syncLoop (Go: probeKey{podUID, containerName, probeType}). */
export const probeWorkerId = (podUid: string, containerName: string, probe: string): `probe:${string}` => actorId('probe', podUid, containerName, probe);

/** The effect that removes a pod's directory, under the volume manager. */
export const podDirectoryActorId = (podUid: string): string => actorId('podDirectory', podUid);

/** The teardown of a volume found on disk at start, under the volume manager (also its entry's key there). */
export const reconstructedVolumeId = (podUid: string, dirName: string): string => actorId('reconstructedVolume', podUid, dirName);

/** A plugin registration socket's actor under the plugin manager: its path under the registration directory. */
export const pluginActorId = (pluginsDir: string, socketPath: string): `plugin:${string}` => {
  const prefix = pluginsDir.endsWith('/') ? pluginsDir : `${pluginsDir}/`;
  return actorId('plugin', socketPath.startsWith(prefix) ? socketPath.slice(prefix.length) : socketPath);
};

/** A registered device plugin's actor under the device manager: its resource and the registration's number (a plugin registering again gets a new actor). */
export const devicePluginActorId = (resourceName: string, registration: number | string): `devicePlugin:${string}` => actorId('devicePlugin', resourceName, String(registration));
