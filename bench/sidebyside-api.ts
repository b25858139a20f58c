/**
 * What the side-by-side bench's phases share: requests to the real API server that must succeed, and
 * waiting for an outcome while the kubelet under test runs.
 */
import { performance } from 'node:perf_hooks';
import { labApi, type KubeLab } from '../test/support/kube-lab-up.js';
import type { StartedKubelet } from './sidebyside-kubelets.js';
import { sleep } from './static-pod-fleet.js';

export type Lab = Pick<KubeLab, 'dir' | 'ca' | 'server'>;

export async function api<T>(lab: Lab, method: string, path: string, body?: unknown, ok: number[] = [200, 201]): Promise<T> {
  const res = await labApi<T>(lab, method, path, body);
  if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

/** Polls `probe` every `everyMs` until it answers true; fails after `ms`, or at once when the kubelet has exited. */
export async function until(kubelet: StartedKubelet, what: string, probe: () => boolean | Promise<boolean>, ms: number, everyMs = 50): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await probe())) {
    if (kubelet.exitCode() !== null) throw new Error(`the kubelet exited (${kubelet.exitCode()}) while waiting for ${what}:\n${kubelet.stderrTail()}`);
    if (performance.now() > deadline) throw new Error(`no ${what} within ${ms} ms:\n${kubelet.stderrTail()}`);
    await sleep(everyMs);
  }
}
