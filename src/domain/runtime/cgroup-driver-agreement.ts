/**
 * Driver agreement (KubeletCgroupDriverFromCRI): the kubelet asks the runtime which cgroup driver
 * it uses (CRI RuntimeConfig) before its container manager makes any cgroup. A runtime that does
 * not know the RPC (containerd before 1.7, UNIMPLEMENTED) or leaves `linux` out says nothing, and
 * the configured driver stands, as in Go. Where the runtime answers a driver other than the
 * configured one, Go adopts the runtime's; kubelet-ts refuses to start instead, naming both, so a
 * node's configuration never silently differs from what runs (docs/DIFFERENCES.md).
 */
import type { CgroupDriver } from '../node/cgroup-roots.js';

/** What RuntimeConfig told: the runtime's `linux.cgroup_driver` enum name, no linux part, or the RPC unknown. */
export type RuntimeCgroupDriverAnswer = { cgroupDriver: string } | 'no-linux-config' | 'unimplemented';

export interface CgroupDriverDecision {
  cgroupDriver: CgroupDriver;
  /** Where it came from: the runtime's answer (agreeing with the configuration), or the configuration alone. */
  from: 'runtime' | 'configuration';
}

const RUNTIME_DRIVERS: Record<string, CgroupDriver> = { SYSTEMD: 'systemd', CGROUPFS: 'cgroupfs' };

/** The driver to use, or an Error saying why the kubelet must not start. */
export function decideCgroupDriver(configured: CgroupDriver, answer: RuntimeCgroupDriverAnswer): CgroupDriverDecision | Error {
  if (answer === 'unimplemented' || answer === 'no-linux-config') return { cgroupDriver: configured, from: 'configuration' };
  const runtime = RUNTIME_DRIVERS[answer.cgroupDriver];
  if (runtime === undefined) return new Error(`runtime returned an unknown cgroup driver ${JSON.stringify(answer.cgroupDriver)}`);
  if (runtime !== configured) {
    return new Error(
      `the container runtime uses the ${JSON.stringify(runtime)} cgroup driver and the kubelet is configured with cgroupDriver (--cgroup-driver) ${JSON.stringify(configured)}: ` +
      `mixing cgroup drivers is not supported; set cgroupDriver to ${JSON.stringify(runtime)}, or configure the runtime for ${JSON.stringify(configured)}`,
    );
  }
  return { cgroupDriver: runtime, from: 'runtime' };
}
