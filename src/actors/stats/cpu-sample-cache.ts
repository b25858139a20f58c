/**
 * The previous CPU sample of the node, the kubelet and each container, for usageNanoCores (which
 * needs two). In the Go kubelet the eviction manager refreshes this cache every 10 s and summary
 * requests only read it; in kubelet-ts every summary read refreshes it (the eviction manager's every
 * 10 s and the servers' requests alike), but a kept sample is replaced only once it is 10 s old: several readers polling often (the
 * metrics server, a person with curl) then still get rates over windows of up to ~10 s rather than
 * over the few milliseconds between each other's requests. Keys not seen in a request are dropped
 * (the container is gone).
 */
import type { CpuSample } from '../../domain/stats/cpu-rate.js';

export const MIN_SAMPLE_WINDOW_NS = 10_000_000_000n;

export class CpuSampleCache {
  private samples = new Map<string, CpuSample>();

  constructor(private readonly minWindowNs: bigint = MIN_SAMPLE_WINDOW_NS) {}

  previous(): ReadonlyMap<string, CpuSample> {
    return this.samples;
  }

  /** Keep this request's samples where none is kept or the kept one is at least the window old. */
  update(current: ReadonlyMap<string, CpuSample>): void {
    const next = new Map<string, CpuSample>();
    for (const [key, sample] of current) {
      const kept = this.samples.get(key);
      const replace = !kept || sample.timestampNs - kept.timestampNs >= this.minWindowNs || sample.usageCoreNanoSeconds < kept.usageCoreNanoSeconds;
      next.set(key, replace ? sample : kept);
    }
    this.samples = next;
  }
}
