/**
 * Local storage isolation (Go: localStorageEviction in eviction_manager.go, with
 * LocalStorageCapacityIsolation): a pod is evicted, whatever the node's thresholds, when
 *   1. an emptyDir of it holds more than its sizeLimit, or
 *   2. its ephemeral storage (containers' rootfs and logs, its local volumes, its hosts file) is
 *      over the sum of its containers' ephemeral-storage limits, or
 *   3. a container's logs, plus its rootfs when the image file system is the node's, are over that
 *      container's own limit.
 * The checks run in that order, one reason per pod, with Go's messages and the immediate grace
 * period; no DisruptionTarget condition is added, as Go adds none for these. Critical pods are
 * never evicted (Go logs and goes on).
 *
 * The effect hands over only the pods that carry such a limit, each with its limits and usage as a
 * few numbers (`LocalStorageSubject`), so the machine and the journal see no whole pods.
 */
import { isCriticalPod } from '../pod/critical.js';
import { podLimits } from '../pod/resource-requests.js';
import type { Pod } from '../pod/types.js';
import { quantityNumber } from '../resources/quantity.js';
import type { FsStats, PodStats } from '../stats/summary-types.js';
import { configuredQuantity } from './messages.js';
import { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, type EvictionChoice } from './synchronize.js';

const EPHEMERAL_STORAGE = 'ephemeral-storage';

/** A limit in bytes with the text Go prints for it. */
export interface StorageLimit { bytes: number; text: string }

export interface LocalStorageSubject {
  uid: string;
  namespace: string;
  name: string;
  critical: boolean;
  /** The emptyDir volumes with a positive sizeLimit, in the spec's order. */
  emptyDirLimits: (StorageLimit & { volume: string })[];
  /** The pod's ephemeral-storage limit (Go's PodLimits), when a container sets one. */
  podLimit?: StorageLimit;
  /** The regular containers' own non-zero limits. */
  containerLimits: (StorageLimit & { container: string })[];
  usage: {
    /** Used bytes by volume name, as the summary measured them. */
    volumes: Record<string, number>;
    /** The pod's ephemeral-storage used bytes; 0 when the summary has none (Go's empty quantity). */
    podBytes: number;
    /** In the summary's order, as Go walks them. */
    containers: { name: string; logsBytes: number; rootfsBytes: number }[];
  };
}

/** Go's diskUsage: the used bytes, 0 when unknown. */
const usedBytes = (fs: FsStats | undefined): number => (fs?.usedBytes === undefined ? 0 : Number(fs.usedBytes));

function limitOf(text: string | undefined): StorageLimit | undefined {
  if (text === undefined) return undefined;
  const bytes = quantityNumber(text);
  return bytes === undefined || bytes <= 0 ? undefined : { bytes, text: configuredQuantity({ quantity: bytes, text }) };
}

/**
 * The pod's summed limit. Go's sum keeps the format of the first limit it adds (containers before
 * init containers), so that one decides binary or decimal.
 */
function podLimit(pod: Pod): StorageLimit | undefined {
  const bytes = podLimits(pod)[EPHEMERAL_STORAGE];
  if (bytes === undefined) return undefined;
  const first = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].map((c) => c.resources?.limits?.[EPHEMERAL_STORAGE]).find((t) => t !== undefined);
  return { bytes, text: configuredQuantity({ quantity: bytes, text: first ?? '' }) };
}

/** The subject for `pod`, or undefined when it sets no local storage limit (nothing to check). */
function subjectLimits(pod: Pod): Omit<LocalStorageSubject, 'usage'> | undefined {
  const emptyDirLimits = (pod.spec.volumes ?? []).flatMap((v) => {
    const limit = v.emptyDir ? limitOf(v.emptyDir.sizeLimit) : undefined;
    return limit ? [{ volume: v.name, ...limit }] : [];
  });
  const containerLimits = pod.spec.containers.flatMap((c) => {
    const limit = limitOf(c.resources?.limits?.[EPHEMERAL_STORAGE]);
    return limit ? [{ container: c.name, ...limit }] : [];
  });
  const limit = podLimit(pod);
  if (emptyDirLimits.length === 0 && containerLimits.length === 0 && !limit) return undefined;
  return {
    uid: pod.metadata.uid ?? '',
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name,
    critical: isCriticalPod(pod),
    emptyDirLimits,
    ...(limit ? { podLimit: limit } : {}),
    containerLimits,
  };
}

/** Whether any of `pods` sets a limit to check: when none does, the summary need not be read. */
export function anyLocalStorageLimit(pods: readonly Pod[]): boolean {
  return pods.some((p) => subjectLimits(p) !== undefined);
}

/** The pods that set a local storage limit and that the summary has (Go skips a pod without stats). */
export function localStorageSubjects(pods: readonly Pod[], stats: readonly PodStats[]): LocalStorageSubject[] {
  const byUid = new Map(stats.map((s) => [s.podRef.uid, s]));
  return pods.flatMap((pod) => {
    const limits = subjectLimits(pod);
    const podStats = byUid.get(pod.metadata.uid ?? '');
    if (!limits || !podStats) return [];
    return [{
      ...limits,
      usage: {
        volumes: Object.fromEntries((podStats.volume ?? []).map((v) => [v.name, usedBytes(v)])),
        podBytes: usedBytes(podStats[EPHEMERAL_STORAGE]),
        containers: podStats.containers.map((c) => ({ name: c.name, logsBytes: usedBytes(c.logs), rootfsBytes: usedBytes(c.rootfs) })),
      },
    }];
  });
}

/** Go's message for the first limit `subject` is over, in Go's order, or null. */
export function localStorageViolation(subject: LocalStorageSubject, dedicatedImageFs: boolean): string | null {
  const { usage } = subject;
  for (const limit of subject.emptyDirLimits) {
    const used = usage.volumes[limit.volume];
    if (used !== undefined && used > limit.bytes) return `Usage of EmptyDir volume ${JSON.stringify(limit.volume)} exceeds the limit ${JSON.stringify(limit.text)}. `;
  }
  if (subject.podLimit && usage.podBytes > subject.podLimit.bytes) {
    return `Pod ephemeral local storage usage exceeds the total limit of containers ${subject.podLimit.text}. `;
  }
  for (const container of usage.containers) {
    const limit = subject.containerLimits.find((l) => l.container === container.name);
    if (!limit) continue;
    const used = container.logsBytes + (dedicatedImageFs ? 0 : container.rootfsBytes);
    if (used > limit.bytes) return `Container ${container.name} exceeded its local ephemeral storage limit ${JSON.stringify(limit.text)}. `;
  }
  return null;
}

/**
 * The first pod over a local storage limit, as an eviction. Go evicts every such pod in one cycle;
 * here one goes per cycle and the next cycle starts as soon as it is gone, as after any eviction.
 */
export function chooseLocalStorageEviction(subjects: readonly LocalStorageSubject[], dedicatedImageFs: boolean): EvictionChoice | null {
  for (const subject of subjects) {
    if (subject.critical) continue;
    const message = localStorageViolation(subject, dedicatedImageFs);
    if (message === null) continue;
    return {
      uid: subject.uid,
      namespace: subject.namespace,
      name: subject.name,
      gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
      message,
      annotations: {},
      disruptionTarget: false,
    };
  }
  return null;
}
