/**
 * Sandbox and container configs for the CRI benchmarks, and the teardown every benchmark pod gets
 * (StopContainer → StopPodSandbox → RemovePodSandbox, the Go kubelet's order). Host network, so CNI
 * is not part of any figure (the embedded runtime has no other network); one busybox container that
 * sleeps until stopped.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KubeletError } from '../src/domain/errors.js';
import type { ContainerConfig, CriClient, PodSandboxConfig } from '../src/ports/cri.js';

export const BENCH_NAMESPACE = 'kts-bench';
/** Every pod the CRI bench makes carries it, so a run can find and remove its leftovers. */
export const BENCH_LABEL = 'kubelet-ts.io/bench-run';

export interface PodPlace {
  runId: string;
  logRoot: string;
  /** cgroupfs parent for the pods (containerd in CI needs its own); undefined: the runtime's default. */
  cgroupParent: string | undefined;
}

export function sandboxConfig(place: PodPlace, name: string): PodSandboxConfig {
  const uid = randomUUID();
  const logDirectory = join(place.logRoot, `${BENCH_NAMESPACE}_${name}_${uid}`);
  mkdirSync(logDirectory, { recursive: true });
  return {
    metadata: { name, uid, namespace: BENCH_NAMESPACE, attempt: 0 },
    log_directory: logDirectory,
    labels: { [BENCH_LABEL]: place.runId },
    annotations: {},
    linux: {
      ...(place.cgroupParent ? { cgroup_parent: `${place.cgroupParent}/pod${uid}` } : {}),
      security_context: { namespace_options: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
    },
  };
}

export function sleeperConfig(image: string, name: string): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image },
    command: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'],
    labels: {},
    annotations: {},
    log_path: `${name}.log`,
  };
}

async function ignoreNotFound(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof KubeletError && err.code === 'KLT_ERR_CRI_NOT_FOUND')) throw err;
  }
}

/** Stops (without grace: nothing here needs one) and removes a pod and its containers. */
export async function tearDownSandbox(cri: CriClient, podSandboxId: string): Promise<void> {
  for (const c of await cri.runtime.listContainers({ pod_sandbox_id: podSandboxId })) {
    if (c.state === 'CONTAINER_RUNNING') await ignoreNotFound(cri.runtime.stopContainer(c.id, 0));
  }
  await ignoreNotFound(cri.runtime.stopPodSandbox(podSandboxId));
  await cri.runtime.removePodSandbox(podSandboxId);
}

/** Removes every pod sandbox a runtime has, with its containers: what a kubelet left behind it. */
export async function tearDownEverySandbox(cri: CriClient): Promise<void> {
  for (const s of await cri.runtime.listPodSandbox()) await tearDownSandbox(cri, s.id);
}

export async function tearDownContainer(cri: CriClient, containerId: string): Promise<void> {
  await ignoreNotFound(cri.runtime.stopContainer(containerId, 0));
  await cri.runtime.removeContainer(containerId);
}

/** Removes every pod this run left; returns how many there were (0 after a clean run). */
export async function tearDownRun(cri: CriClient, runId: string): Promise<number> {
  const pods = await cri.runtime.listPodSandbox({ label_selector: { [BENCH_LABEL]: runId } });
  for (const p of pods) await tearDownSandbox(cri, p.id);
  return pods.length;
}
