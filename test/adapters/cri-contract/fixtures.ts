/** Pod and container configs for the contract suite, and the label that marks this run's pods. */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ContainerConfig, KeyValue, PodSandboxConfig } from '../../../src/ports/cri.js';

/** Every pod the suite creates carries this label, so leftovers of this run can be found and removed. */
export const RUN_LABEL = 'kubelet-ts.io/contract-run';
export const TEST_NAMESPACE = 'kts-contract';

/**
 * A long-running container that exits 0 on SIGTERM and says `ready` once its trap is set: stopping
 * it before the trap exists would wait for the whole grace period (lab NOTES §8.7).
 */
export const TRAP_TERM_SCRIPT = 'trap "exit 0" TERM; echo ready; while :; do sleep 3600 & wait $!; done';
/** Ignores SIGTERM (PID 1 with the signal ignored), so only the SIGKILL after the grace period stops it. */
export const IGNORE_TERM_SCRIPT = 'trap "" TERM; echo ready; while :; do sleep 1; done'; // the loop is the idle body; tests wait for `ready` and the kill

export interface PodOptions {
  runId: string;
  logRoot: string;
  cgroupParent: string | undefined;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

let podCounter = 0;

export function podConfig(opts: PodOptions): PodSandboxConfig {
  podCounter += 1;
  const uid = randomUUID();
  const name = `pod-${podCounter}-${uid.slice(0, 8)}`;
  return {
    metadata: { name, uid, namespace: TEST_NAMESPACE, attempt: 0 },
    // No hostname: like the Go kubelet for host-network pods (runc cannot set one without a UTS namespace).
    log_directory: join(opts.logRoot, `${TEST_NAMESPACE}_${name}_${uid}`),
    labels: { [RUN_LABEL]: opts.runId, ...opts.labels },
    annotations: { 'kubelet-ts.io/test': 'cri-contract', ...opts.annotations },
    linux: {
      ...(opts.cgroupParent ? { cgroup_parent: `${opts.cgroupParent}/pod${uid}` } : {}),
      // Host network keeps CNI (and its timing) out of the lifecycle checks.
      security_context: { namespace_options: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } },
    },
  };
}

export interface ContainerOptions {
  name: string;
  image: string;
  script: string;
  envs?: Record<string, string>;
  workingDir?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function containerConfig(opts: ContainerOptions): ContainerConfig {
  const envs: KeyValue[] = Object.entries(opts.envs ?? {}).map(([key, value]) => ({ key, value: Buffer.from(value, 'utf8') }));
  return {
    metadata: { name: opts.name, attempt: 0 },
    image: { image: opts.image },
    command: ['sh', '-c', opts.script],
    envs,
    ...(opts.workingDir ? { working_dir: opts.workingDir } : {}),
    labels: opts.labels ?? {},
    annotations: opts.annotations ?? {},
    log_path: `${opts.name}/0.log`,
  };
}
