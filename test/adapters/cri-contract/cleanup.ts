/**
 * Pod teardown in the order the Go kubelet uses and containerd needs: StopContainer (with a grace
 * period) → StopPodSandbox (which kills without grace) → RemovePodSandbox (which removes containers).
 * Like the Go kubelet (killPodWithSyncResult, killContainer), NOT_FOUND from a Stop means "already
 * gone": containerd 1.6 answers it for ids it no longer knows.
 */
import { KubeletError } from '../../../src/domain/errors.js';
import type { CriClient } from '../../../src/ports/cri.js';
import { RUN_LABEL } from './fixtures.js';

export async function ignoreNotFound(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
  }
}

export async function tearDownPod(cri: CriClient, podSandboxId: string): Promise<void> {
  const containers = await cri.runtime.listContainers({ pod_sandbox_id: podSandboxId });
  for (const c of containers) {
    if (c.state === 'CONTAINER_RUNNING') await ignoreNotFound(cri.runtime.stopContainer(c.id, 2));
  }
  await ignoreNotFound(cri.runtime.stopPodSandbox(podSandboxId));
  await cri.runtime.removePodSandbox(podSandboxId);
}

/** Removes every pod of this run still known to the runtime; returns how many were found. */
export async function tearDownRun(cri: CriClient, runId: string): Promise<number> {
  const pods = await cri.runtime.listPodSandbox({ label_selector: { [RUN_LABEL]: runId } });
  for (const p of pods) await tearDownPod(cri, p.id);
  return pods.length;
}
