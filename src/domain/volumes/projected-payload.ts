/**
 * A projected volume's content (Go: pkg/volume/projected, collectData): its sources merged in
 * order into one payload, each with its own items and the projected volume's defaultMode. A path
 * two sources both produce holds the later one's file (API validation refuses such a pod; the
 * kubelet itself just overwrites). Every failing source is reported, in one error, and then nothing
 * is written.
 */
import { KubeletError } from '../errors.js';
import type { Pod } from '../pod/types.js';
import { configMapPayload } from './configmap-payload.js';
import { collectDownwardApi, type DownwardApiNode } from './downward-api-payload.js';
import { defaultVolumeFileMode } from './keyed-payload.js';
import { checkedPayloadPath } from './payload-path.js';
import { secretPayload } from './secret-payload.js';
import type { KeyedData, Payload, ProjectedVolumeSource } from './sources.js';
import { aggregateErrors, asKubeletError } from './volume-errors.js';

/** The mode of a token file when the pod has an fsUser or fsGroup (fsGroup then adds g+r: 0640). */
export const ownedTokenFileMode = 0o600;

export interface ProjectedInputs {
  pod: Pod;
  /** The ConfigMaps the sources name, fetched; undefined (or absent): the object does not exist. */
  configMaps?: ReadonlyMap<string, KeyedData | undefined>;
  /** The Secrets the sources name, fetched; undefined (or absent): the object does not exist. */
  secrets?: ReadonlyMap<string, KeyedData | undefined>;
  /** Each serviceAccountToken source's token, by the source's `path` (the caller asked the token manager). */
  tokens?: ReadonlyMap<string, string>;
  node?: DownwardApiNode;
  /** Go's MounterArgs.FsUser (fsUserFrom(pod)): the token file is given to this uid. */
  fsUser?: number;
  /** The pod's securityContext.fsGroup. */
  fsGroup?: number;
}

/**
 * The payload of a projected volume. Throws one KubeletError for every failing source (the first
 * failure's code: KLT_ERR_API_NOT_FOUND, KLT_ERR_POD_SPEC_INVALID, KLT_ERR_CONTAINER_CONFIG, or
 * KLT_ERR_INTERNAL for a token the caller did not supply).
 */
export function projectedPayload(source: ProjectedVolumeSource, inputs: ProjectedInputs): Payload {
  const defaultMode = source.defaultMode ?? defaultVolumeFileMode;
  const payload: Payload = new Map();
  const errors: KubeletError[] = [];
  const merge = (part: Payload) => {
    for (const [path, file] of part) payload.set(path, file);
  };

  for (const projection of source.sources ?? []) {
    try {
      if (projection.secret !== undefined) {
        const { name, items, optional } = projection.secret;
        merge(secretPayload({ secretName: name, items, optional, defaultMode }, inputs.secrets?.get(name ?? '')));
      } else if (projection.configMap !== undefined) {
        const { name, items, optional } = projection.configMap;
        merge(configMapPayload({ name, items, optional, defaultMode }, inputs.configMaps?.get(name ?? '')));
      } else if (projection.downwardAPI !== undefined) {
        const collected = collectDownwardApi(projection.downwardAPI.items ?? [], inputs.pod, inputs.node ?? {}, defaultMode);
        errors.push(...collected.errors);
        if (collected.errors.length === 0) merge(collected.payload);
      } else if (projection.serviceAccountToken !== undefined) {
        const tokenPath = projection.serviceAccountToken.path;
        const token = inputs.tokens?.get(tokenPath);
        if (token === undefined) throw new KubeletError('KLT_ERR_INTERNAL', `no service account token was supplied for ${tokenPath}`);
        const path = checkedPayloadPath(tokenPath);
        // With an fsUser or fsGroup the token is not world-readable: 0600, and fsGroup's
        // ownership pass widens it to 0640 for the group.
        const owned = inputs.fsUser !== undefined || inputs.fsGroup !== undefined;
        payload.set(path, {
          path,
          content: Buffer.from(token),
          mode: owned ? ownedTokenFileMode : defaultMode,
          ...(inputs.fsUser === undefined ? {} : { fsUser: inputs.fsUser }),
        });
      }
    } catch (err) {
      errors.push(asKubeletError(err));
    }
  }

  const failure = aggregateErrors(errors);
  if (failure !== undefined) throw failure;
  return payload;
}
