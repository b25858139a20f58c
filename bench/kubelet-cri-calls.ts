/**
 * How many CRI calls a kubelet has made, by operation: kubelet_runtime_operations_total from its own
 * /metrics, which the Go kubelet and kubelet-ts both serve under that name.
 */
import type { KubeLab } from '../test/support/kube-lab-up.js';
import { adminMetrics, samplesOf } from './admin-metrics.js';

export async function criCalls(lab: Pick<KubeLab, 'dir' | 'ca'>, port: number): Promise<Map<string, number>> {
  const text = await adminMetrics(lab, new URL(`https://127.0.0.1:${port}/metrics`), { selfSigned: true });
  return new Map(samplesOf(text, 'kubelet_runtime_operations_total').map((s) => [s.labels['operation_type'] ?? '', s.value]));
}
