/**
 * The DRA claim manager (Go: pkg/kubelet/cm/dra Manager's prepareResources, GetResources and
 * unprepareResources), over the pure steps of domain/dra:
 * - prepare: every claim of the pod is read from the API server and checked first (made for the pod,
 *   reserved for it, allocated, its drivers registered): a refusal leaves nothing behind, so such a
 *   pod can be deleted without an unprepare. Then each claim is entered once (a claim shared by pods
 *   has one entry listing them) and checkpointed, the claims not yet prepared are sent to their
 *   drivers in one NodePrepareResources per driver, and the devices they answer are kept and
 *   checkpointed with the claims marked prepared.
 * - unprepare: a claim another pod still uses only loses this pod; the others go to their drivers in
 *   one NodeUnprepareResources per driver and are forgotten once every driver has answered.
 * - reconcile: the pods the kept claims name that no longer run (deleted while the kubelet was down,
 *   or whose unprepare failed) are unprepared as above; a failure is logged and tried again next time.
 * The checkpoint is read at start (claims come back not prepared: the next sync prepares them again,
 * which a driver answers from what it kept). Checkpoint writes run one after another. A claim being
 * prepared for one pod is waited for by another pod's prepare (Go may call the driver twice then);
 * a claim being unprepared is waited for by a prepare or another unprepare of it (Go holds its
 * cache's lock across the call), so a pod joining it then has it prepared again, not forgotten.
 */
import { decodeClaimCheckpoint, encodeClaimCheckpoint } from '../../domain/dra/claim-checkpoint.js';
import { cdiDeviceIds, claimInfoFromClaim, driverBatches, preparedWith, prepareBatches, stalePodClaims, withoutPod, withPod, type ClaimInfo, type PreparedDevice } from '../../domain/dra/claim-info.js';
import { claimRefusal, podClaimName } from '../../domain/dra/pod-claims.js';
import type { ResourceClaim } from '../../domain/dra/resource-claim.js';
import { KubeletError } from '../../domain/errors.js';
import type { Container, Pod } from '../../domain/pod/types.js';
import type { Logger } from '../../log.js';
import type { ClaimCheckpointStore, ClaimGetter, DraClaimManager } from '../../ports/dra-claims.js';
import type { DraClaim, DraPluginClients, DraPrepareResult, DraUnprepareResult } from '../../ports/dra-plugins.js';

export interface DraClaimManagerDeps {
  getClaim: ClaimGetter;
  plugins: DraPluginClients;
  checkpoint: ClaimCheckpointStore;
  logger: Logger;
}

const claimFailure = (message: string, cause?: unknown) => new KubeletError('KLT_ERR_DRA_CLAIM', message, { ...(cause ? { cause } : {}), retryable: true });

/**
 * One driver's call for a batch of claims, checked as Go checks it: a failed call, a claim's own
 * error, or a claim left out each fail with Go's words.
 */
async function callDriver<T extends DraPrepareResult | DraUnprepareResult>(
  method: 'NodePrepareResources' | 'NodeUnprepareResources', claims: readonly DraClaim[], call: () => Promise<Map<string, T>>,
): Promise<Map<string, T>> {
  let answers: Map<string, T>;
  try {
    answers = await call();
  } catch (err) {
    throw claimFailure(`${method}: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  for (const [uid, result] of answers) {
    if ('error' in result && result.error !== '') throw claimFailure(`${method} failed for ResourceClaim ${claims.find((c) => c.uid === uid)!.name}: ${result.error}`);
  }
  if (answers.size !== claims.length) throw claimFailure(`${method} skipped ${claims.length - answers.size} ResourceClaims`);
  return answers;
}
const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
const namespaceOf = (pod: Pod) => pod.metadata.namespace ?? 'default';

/** The names of the pod's claims that exist (a template's claim not needed is none); throws Go's error for one not made yet. */
function claimNames(pod: Pod): { podClaim: string; name: string; mustCheckOwner: boolean }[] {
  return (pod.spec.resourceClaims ?? []).flatMap((podClaim) => {
    const named = podClaimName(pod, podClaim);
    if (named.kind === 'error') throw claimFailure(named.message);
    return named.kind === 'none' ? [] : [{ podClaim: podClaim.name, name: named.name, mustCheckOwner: named.mustCheckOwner }];
  });
}

export async function createDraClaimManager(deps: DraClaimManagerDeps): Promise<DraClaimManager> {
  const { plugins, logger } = deps;
  const cache = new Map<string, ClaimInfo>();
  const saved = await deps.checkpoint.read().catch((err: unknown) => {
    logger.error({ err }, 'DRA checkpoint unreadable: it is set aside and rewritten');
    return undefined;
  });
  if (saved !== undefined) {
    const decoded = decodeClaimCheckpoint(saved);
    // Go refuses to start on a corrupt checkpoint; the claims it names are prepared again as their pods sync.
    if (!decoded.ok) logger.error({ problem: decoded.error }, 'DRA checkpoint unreadable: it is set aside and rewritten');
    else for (const info of decoded.claims) cache.set(keyOf(info.namespace, info.claimName), info);
  }

  /** The claims being prepared now, by namespace/name: the preparation to wait for. */
  const inflight = new Map<string, Promise<void>>();
  /** The claims being unprepared now, by namespace/name: what a prepare or unprepare of them waits for. */
  const unpreparing = new Map<string, Promise<void>>();
  const unprepared = (keys: readonly string[]) => Promise.all(keys.flatMap((k) => unpreparing.get(k) ?? []));
  let writes: Promise<void> = Promise.resolve();
  let version = 0;
  const sync = (): Promise<void> => {
    version++;
    const text = encodeClaimCheckpoint([...cache.values()]);
    writes = writes.catch(() => undefined).then(() => deps.checkpoint.write(text));
    return writes.catch((err: unknown) => {
      throw claimFailure(`checkpoint ResourceClaim state: ${err instanceof Error ? err.message : String(err)}`, err);
    });
  };

  async function prepare(pod: Pod): Promise<void> {
    const namespace = namespaceOf(pod);
    // The validation pass: nothing is entered until every claim checks out.
    const checked: ResourceClaim[] = [];
    for (const { name, mustCheckOwner } of claimNames(pod)) {
      let claim: ResourceClaim;
      try {
        claim = await deps.getClaim(namespace, name);
      } catch (err) {
        throw claimFailure(`fetch ResourceClaim ${name}: ${err instanceof Error ? err.message : String(err)}`, err);
      }
      const refusal = claimRefusal(pod, claim, mustCheckOwner);
      if (refusal) throw claimFailure(refusal);
      for (const driver of Object.keys(claimInfoFromClaim(claim).drivers)) plugins.get(driver);
      checked.push(claim);
    }
    if (checked.length === 0) return;
    await unprepared(checked.map((claim) => keyOf(namespace, claim.metadata.name)));

    const pending: ClaimInfo[] = [];
    for (const claim of checked) {
      const key = keyOf(namespace, claim.metadata.name);
      const known = cache.get(key);
      if (known && known.claimUid !== (claim.metadata.uid ?? '')) {
        throw claimFailure(`old ResourceClaim with same name ${claim.metadata.name} and different UID ${known.claimUid} still exists (previous pod force-deleted?!)`);
      }
      const info = withPod(known ?? claimInfoFromClaim(claim), pod.metadata.uid ?? '');
      cache.set(key, info);
      if (!info.prepared) pending.push(info);
    }
    await sync();

    // A claim another pod's sync is preparing now is waited for, not sent again: two pods sharing a
    // claim that start together prepare it once.
    const others = pending.flatMap((info) => inflight.get(keyOf(info.namespace, info.claimName)) ?? []);
    const mine = pending.filter((info) => !inflight.has(keyOf(info.namespace, info.claimName)));
    const run = prepareClaims(mine);
    for (const info of mine) {
      const key = keyOf(info.namespace, info.claimName);
      inflight.set(key, run);
      run.then(() => inflight.delete(key), () => inflight.delete(key));
    }
    await run;
    await Promise.all(others);
  }

  async function prepareClaims(pending: readonly ClaimInfo[]): Promise<void> {
    if (pending.length === 0) return;
    const devices = new Map<string, Record<string, PreparedDevice[]>>();
    for (const [driver, claims] of prepareBatches(pending)) {
      const answers = await callDriver('NodePrepareResources', claims, () => plugins.get(driver).nodePrepareResources(claims));
      for (const [uid, result] of answers) {
        const byDriver = devices.get(uid) ?? {};
        byDriver[driver] = 'devices' in result ? result.devices.map((d) => ({ ...d })) : [];
        devices.set(uid, byDriver);
      }
    }
    for (const info of pending) {
      const key = keyOf(info.namespace, info.claimName);
      cache.set(key, preparedWith(cache.get(key) ?? info, devices.get(info.claimUid) ?? {}));
    }
    await sync();
  }

  function cdiDevices(pod: Pod, container: Container): string[] {
    const names = new Map(claimNames(pod).map((c) => [c.podClaim, c.name]));
    const ids: string[] = [];
    for (const use of container.resources?.claims ?? []) {
      const name = names.get(use.name);
      if (name === undefined) continue;
      const info = cache.get(keyOf(namespaceOf(pod), name));
      if (!info) throw claimFailure(`internal error: unable to get claim info for ResourceClaim ${name}`);
      ids.push(...cdiDeviceIds(info, use.request));
    }
    return ids;
  }

  /** Go's unprepareResources: the pod leaves each named claim; a claim no pod uses any more goes to its drivers. */
  async function unprepareNamed(podUid: string, namespace: string, names: readonly string[]): Promise<void> {
    await unprepared(names.map((name) => keyOf(namespace, name)));
    const leaving: ClaimInfo[] = [];
    for (const name of names) {
      const key = keyOf(namespace, name);
      const info = cache.get(key);
      if (!info) continue;
      const rest = withoutPod(info, podUid);
      if (rest.podUids.length > 0) cache.set(key, rest);
      else leaving.push(info);
    }
    const run = (async () => {
      for (const [driver, claims] of driverBatches(leaving)) {
        await callDriver('NodeUnprepareResources', claims, () => plugins.get(driver).nodeUnprepareResources(claims));
      }
      for (const info of leaving) cache.delete(keyOf(info.namespace, info.claimName));
    })();
    for (const info of leaving) {
      const key = keyOf(info.namespace, info.claimName);
      const settled = run.catch(() => undefined);
      unpreparing.set(key, settled);
      void settled.then(() => {
        if (unpreparing.get(key) === settled) unpreparing.delete(key);
      });
    }
    await run;
    await sync();
  }

  function unprepare(pod: Pod): Promise<void> {
    return unprepareNamed(pod.metadata.uid ?? '', namespaceOf(pod), claimNames(pod).map((c) => c.name));
  }

  async function reconcile(holders: ReadonlySet<string>): Promise<number> {
    let unprepared = 0;
    for (const stale of stalePodClaims([...cache.values()], holders)) {
      try {
        await unprepareNamed(stale.podUid, stale.namespace, stale.claimNames);
        unprepared++;
        logger.info({ podUid: stale.podUid, claims: stale.claimNames }, 'DRA claims of a pod that no longer runs unprepared');
      } catch (err) {
        logger.warn({ err, podUid: stale.podUid }, 'Unpreparing pod resources in reconcile loop failed, will retry');
      }
    }
    return unprepared;
  }

  function containerClaims(pod: Pod, container: Container): ClaimInfo[] {
    let names;
    try {
      names = new Map(claimNames(pod).map((c) => [c.podClaim, c.name]));
    } catch {
      return []; // a template's claim not made yet: nothing kept for it
    }
    return (container.resources?.claims ?? []).flatMap((use) => {
      const name = names.get(use.name);
      const info = name === undefined ? undefined : cache.get(keyOf(namespaceOf(pod), name));
      return info ? [info] : [];
    });
  }

  return { prepare, cdiDevices, unprepare, reconcile, containerClaims, version: () => version };
}
