/**
 * usageNanoCores from two cumulative CPU samples: the Go kubelet's CRI stats provider computes it
 * this way when the runtime leaves it out (getContainerUsageNanoCores), and so does cAdvisor for
 * the node. One sample gives no rate, so the field stays absent until a second one exists.
 */

export interface CpuSample {
  /** Epoch nanoseconds at which the counter was read. */
  timestampNs: bigint;
  /** Cumulative CPU time in nanoseconds, all cores. */
  usageCoreNanoSeconds: bigint;
}

const NS_PER_SECOND = 1_000_000_000n;

/**
 * Core-nanoseconds per second between `previous` and `current`, rounded down; undefined when there
 * is no earlier sample, when no time passed between them, or when the counter went backwards (the
 * object was re-created under the same key, so the two samples are not of the same counter).
 */
export function usageNanoCores(previous: CpuSample | undefined, current: CpuSample): bigint | undefined {
  if (!previous) return undefined;
  const elapsedNs = current.timestampNs - previous.timestampNs;
  const usedNs = current.usageCoreNanoSeconds - previous.usageCoreNanoSeconds;
  if (elapsedNs <= 0n || usedNs < 0n) return undefined;
  return (usedNs * NS_PER_SECOND) / elapsedNs;
}
