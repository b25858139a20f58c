/**
 * The content of the API-backed volumes (Go: the configmap, secret, downwardapi and projected
 * plugins' SetUpAt): the objects fetched through the ConfigMap, Secret and token managers, the
 * payload built by the domain's builders, and written by the atomic writer with the pod's fsGroup.
 * A projected token is asked for on every set-up; the manager hands back its cached token until it
 * needs refreshing, and `refreshAfterMs` tells the volume machine when to set the volume up again.
 *
 * The writes on disk of every pod share one set of call slots (call-slots.ts), the node's budget for
 * pod content: however many pods write, and however many keys their objects hold, their files take
 * at most that many descriptors, and the kubelet's own calls (its certificates, /proc, the API
 * client's files) wait in the thread pool behind at most that many of theirs. Writes to a tmpfs
 * need none: an inline call opens and closes its file before it returns.
 */
import { createHash } from 'node:crypto';
import { KubeletError, serializeError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import { configMapPayload } from '../../domain/volumes/configmap-payload.js';
import { downwardApiPayload } from '../../domain/volumes/downward-api-payload.js';
import { fsUserFrom } from '../../domain/volumes/fs-user.js';
import { projectedPayload } from '../../domain/volumes/projected-payload.js';
import { secretPayload } from '../../domain/volumes/secret-payload.js';
import type { KeyedData, Payload, Volume } from '../../domain/volumes/sources.js';
import type { Clock } from '../../ports/clock.js';
import type { VolumeSources } from '../../ports/volume-sources.js';
import { apiStatusMessage } from '../apiserver/api-errors.js';
import { allBounded } from '../fs/bounded-calls.js';
import { callSlots } from '../fs/call-slots.js';
import { dataDirName, writePayloadAtomically } from './atomic-writer.js';
import { assertBelowPodDirectory } from './pod-confinement.js';
import { inlineCalls, limitedCalls, threadPoolCalls, type FsCalls } from './fs-calls.js';
import { turnIfLarge, turnIfLargeKeys } from './large-payload.js';
import type { VolumeContent, VolumeContentWriter } from './volume-plugins.js';

/** Go's default for a projected token without expirationSeconds (1 h). */
const defaultTokenExpirationSeconds = 3600;

/** The objects of one projected volume read at once. */
const projectedReadConcurrency = 8;

/** Pod content's calls on disk under way at once, node-wide: twice a write's own bound, so two writes go at full speed. */
export const podContentCallSlots = 16;

export interface ApiContentOptions {
  sources: VolumeSources;
  clock: Pick<Clock, 'now'>;
  /** Node allocatable, for resourceFieldRef of containers without limits. */
  nodeAllocatable?: () => Record<string, string> | undefined;
  /** How content on disk is written (default the thread pool's calls), before the node's slots are put in front. */
  diskCalls?: FsCalls;
}

/** Objects a projected volume names, read a few at a time: the pod chooses how many it names. */
async function fetchAll(names: readonly string[], read: (name: string) => Promise<KeyedData | undefined>): Promise<Map<string, KeyedData | undefined>> {
  const entries = await allBounded([...new Set(names)], projectedReadConcurrency, async (name) => [name, await read(name)] as const);
  return new Map(entries);
}

/** A payload's identity: every path, mode, owner and byte, and the group it is written for. */
function payloadDigest(payload: Payload, fsGroup: number | undefined): string {
  const hash = createHash('sha256').update(`fsGroup=${fsGroup ?? ''}\n`);
  for (const path of [...payload.keys()].sort()) {
    const file = payload.get(path)!;
    hash.update(`${path}\0${file.mode}\0${file.fsUser ?? ''}\0${file.content.length}\0`).update(file.content);
  }
  return hash.digest('hex');
}

const exists = (calls: FsCalls, path: string) => calls.lstat(path).then(() => true, () => false);

/** The object read, after a turn of the event loop when it holds a large payload's keys (its decoding was one step). */
async function afterTurnIfLarge(read: Promise<KeyedData | undefined>): Promise<KeyedData | undefined> {
  const object = await read;
  await turnIfLargeKeys(object?.data);
  return object;
}

export function createApiContentWriter(opts: ApiContentOptions): VolumeContentWriter {
  const { sources } = opts;
  const diskCalls = limitedCalls(opts.diskCalls ?? threadPoolCalls, callSlots(podContentCallSlots));
  // What each directory was last written with: a remount that finds the same payload (the usual
  // case, once a pod resync a minute) leaves the disk alone instead of reading every file back.
  const written = new Map<string, string>();
  const node = () => {
    const nodeAllocatable = opts.nodeAllocatable?.();
    return nodeAllocatable ? { nodeAllocatable } : {};
  };

  async function payloadOf(pod: Pod, volume: Volume): Promise<VolumeContent> {
    const namespace = pod.metadata.namespace ?? 'default';
    if (volume.configMap) {
      const configMap = await afterTurnIfLarge(sources.configMap(namespace, volume.configMap.name ?? ''));
      return { payload: configMapPayload(volume.configMap, configMap) };
    }
    if (volume.secret) {
      const secret = await afterTurnIfLarge(sources.secret(namespace, volume.secret.secretName ?? ''));
      return { payload: secretPayload(volume.secret, secret) };
    }
    if (volume.downwardAPI) return { payload: downwardApiPayload(volume.downwardAPI, pod, node()) };
    const projected = volume.projected ?? {};
    const projections = projected.sources ?? [];
    const configMaps = await fetchAll(projections.flatMap((p) => (p.configMap ? [p.configMap.name ?? ''] : [])), (n) => sources.configMap(namespace, n));
    const secrets = await fetchAll(projections.flatMap((p) => (p.secret ? [p.secret.name ?? ''] : [])), (n) => sources.secret(namespace, n));
    const tokens = new Map<string, string>();
    let refreshAtMs: number | undefined;
    for (const p of projections) {
      if (!p.serviceAccountToken) continue;
      const token = await sources.serviceAccountToken({
        namespace,
        serviceAccountName: pod.spec.serviceAccountName ?? 'default',
        audience: p.serviceAccountToken.audience ?? '',
        expirationSeconds: p.serviceAccountToken.expirationSeconds ?? defaultTokenExpirationSeconds,
        pod: { namespace, name: pod.metadata.name, uid: pod.metadata.uid },
      }).catch((err: unknown) => {
        throw tokenFetchFailed(err);
      });
      tokens.set(p.serviceAccountToken.path, token.token);
      refreshAtMs = Math.min(refreshAtMs ?? Infinity, token.refreshAtMs);
    }
    const fsUser = fsUserFrom(pod);
    const fsGroup = pod.spec.securityContext?.fsGroup;
    const payload = projectedPayload(projected, {
      pod, configMaps, secrets, tokens, node: node(),
      ...(fsUser !== undefined ? { fsUser } : {}),
      ...(fsGroup !== undefined ? { fsGroup } : {}),
    });
    return { payload, ...(refreshAtMs !== undefined ? { refreshAtMs } : {}) };
  }

  return {
    forget: (dir) => written.delete(dir),
    async fetch(pod, volume) {
      sources.registerPod(pod);
      return payloadOf(pod, volume);
    },
    async write(pod, target, { payload, refreshAtMs }, memoryBacked) {
      const { dir } = target;
      const fsGroup = pod.spec.securityContext?.fsGroup;
      const refresh = refreshAtMs !== undefined ? { refreshAfterMs: Math.max(refreshAtMs - opts.clock.now(), 0) } : {};
      await turnIfLarge(payload.size);
      const digest = payloadDigest(payload, fsGroup);
      const calls = memoryBacked ? inlineCalls : diskCalls;
      if (written.get(dir) === digest && (await exists(calls, `${dir}/${dataDirName}`))) return { changed: false, ...refresh };
      // The writer chowns and chmods what it writes: only ever below the pod's directory.
      await assertBelowPodDirectory(target);
      const { changed } = await writePayloadAtomically(dir, payload, { calls, ...(fsGroup !== undefined ? { fsGroup } : {}) });
      written.set(dir, digest);
      return { changed, ...refresh };
    },
  };
}

/**
 * A token the API server would not issue, worded as Go's projected plugin words it: "failed to
 * fetch token: " and the server's own text (`pod "x" not found` while the NodeRestriction
 * admission's pod cache has not seen a new pod yet), keeping the code and whether it is retried.
 */
function tokenFetchFailed(err: unknown): KubeletError {
  const { code, retryable } = serializeError(err);
  return new KubeletError(code, `failed to fetch token: ${apiStatusMessage(err)}`, { cause: err, retryable });
}
