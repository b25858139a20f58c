/**
 * The actuated resources checkpoint, `<root-dir>/actuated_pods_state` (Go's allocation/state
 * checkpoint under the name kuberuntime gives it): per pod uid and container name, the cpu and memory
 * amounts the container was last started or updated with, so a restarted kubelet knows which resizes
 * are already applied.
 *
 * Differs from Go on purpose: Go's file holds v1.ResourceRequirements with a checksum over Go's own
 * struct dump; ours holds the four amounts a resize compares (actuated-resources.ts) with a sha256 of
 * their canonical JSON. A Go kubelet's file is refused (the checksum does not match), as Go refuses a
 * file it cannot verify, naming the file so it can be removed after draining the node.
 */
import { createHash } from 'node:crypto';
import type { ResourceAmounts } from './actuated-resources.js';
import { canonicalJson } from './container-hash.js';

export const ACTUATED_PODS_STATE_FILE = 'actuated_pods_state';

/** Amounts by pod uid, then container name. */
export type ActuatedPods = Record<string, Record<string, ResourceAmounts>>;

function checksum(pods: ActuatedPods): string {
  return createHash('sha256').update(canonicalJson(pods)).digest('hex');
}

export function encodeActuatedPods(pods: ActuatedPods): string {
  return canonicalJson({ entries: pods, checksum: checksum(pods) });
}

const AMOUNT_KEYS: readonly (keyof ResourceAmounts)[] = ['cpuRequestMilli', 'cpuLimitMilli', 'memoryRequestBytes', 'memoryLimitBytes'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isAmounts(v: unknown): v is ResourceAmounts {
  return isObject(v) && Object.keys(v).length === AMOUNT_KEYS.length &&
    AMOUNT_KEYS.every((k) => typeof v[k] === 'number' && Number.isSafeInteger(v[k]) && (v[k] as number) >= 0);
}

/** The pods a file holds; throws an Error saying what is wrong with it. */
export function decodeActuatedPods(text: string): ActuatedPods {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  if (!isObject(parsed) || !isObject(parsed.entries) || typeof parsed.checksum !== 'string') throw new Error('not an actuated resources checkpoint');
  const pods: ActuatedPods = {};
  for (const [uid, containers] of Object.entries(parsed.entries)) {
    if (!isObject(containers)) throw new Error(`pod ${JSON.stringify(uid)}: not a map of containers`);
    const entry: Record<string, ResourceAmounts> = {};
    for (const [name, amounts] of Object.entries(containers)) {
      if (!isAmounts(amounts)) throw new Error(`pod ${JSON.stringify(uid)} container ${JSON.stringify(name)}: not cpu and memory amounts`);
      entry[name] = amounts;
    }
    pods[uid] = entry;
  }
  if (checksum(pods) !== parsed.checksum) throw new Error('checkpoint is corrupted (checksum mismatch)');
  return pods;
}
