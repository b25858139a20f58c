/**
 * How many CRI calls a kubelet has made, by operation: kubelet_runtime_operations_total from its own
 * /metrics, which the Go kubelet and kubelet-ts both serve under that name. Read as the lab's admin
 * (both kubelets authorise their server's readers through the API server).
 */
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { adminTls, type KubeLab } from '../test/support/kube-lab-up.js';
import { sleep } from './static-pod-fleet.js';

export async function criCalls(lab: Pick<KubeLab, 'dir' | 'ca'>, port: number): Promise<Map<string, number>> {
  const text = await metricsText(lab, port);
  const calls = new Map<string, number>();
  for (const m of text.matchAll(/^kubelet_runtime_operations_total\{operation_type="(\w+)"\} (\d+)/gm)) calls.set(m[1]!, Number(m[2]));
  return calls;
}

/** The kubelet server starts after healthz and the Node: a read right after start-up may find it not listening yet. */
async function metricsText(lab: Pick<KubeLab, 'dir' | 'ca'>, port: number): Promise<string> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      return await metricsOnce(lab, port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || performance.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

function metricsOnce(lab: Pick<KubeLab, 'dir' | 'ca'>, port: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/metrics', ...adminTls(lab), rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The calls made between two readings, by operation (those made at least once). */
export function callsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const made = new Map<string, number>();
  for (const [op, n] of after) if (n - (before.get(op) ?? 0) > 0) made.set(op, n - (before.get(op) ?? 0));
  return made;
}
