/**
 * The container manager's cgroup work (pkg/kubelet/cm container_manager_linux.go setupNode/Start,
 * qos_container_manager_linux.go, pod_container_manager_linux.go, and the kubelet's
 * cleanupOrphanedPodCgroups), over the CgroupManager port. The containerManager machine drives it:
 *
 * - start (ContainerManager.Start, once the runtime is up): the node-allocatable cgroup `kubepods`
 *   created or updated with its cpu shares and memory limit, the QoS cgroups `burstable` and
 *   `besteffort` created with theirs, then the enforced reservations applied to the existing
 *   --kube-reserved-cgroup / --system-reserved-cgroup. Pod cgroup creations wait for it.
 * - ensurePod (Kubelet.SyncPod, before the sandbox): the QoS cgroups updated for the pods now active,
 *   then the pod's cgroup created with ResourceConfigForPod's settings when it does not exist yet;
 *   answers the cgroup_parent the sandbox gets, in the driver's form (`/kubepods.slice/…` for systemd).
 * - updateQos (every minute, and after pod cgroups were removed): the burstable shares recomputed.
 * - readPod / desiredPod / updatePod (an in-place resize, Go's Get/SetPodCgroupConfig): the pod
 *   cgroup's settings now, what ResourceConfigForPod gives the pod as allocated, and a write of some
 *   of them; a pod without a cgroup reads as undefined.
 * - cleanup (housekeeping): every pod cgroup under the QoS cgroups whose pod may no longer run is
 *   destroyed, its leftover processes killed first.
 * Without cgroupsPerQOS every step does nothing and pods get no cgroup_parent (the runtime's own).
 * Either way start first checks the kernel tunables (kernel-tunables-check.ts), as setupNode does.
 */
import { podCgroupName, podCgroupParents, podUidOfCgroup, resourceConfigForPod, type PodCgroupSettings } from '../../domain/cgroups/pod-cgroup.js';
import { nodeAllocatableCgroupConfig, qosCgroupConfigs, reservedCgroupConfig, type NodePids, type QosCgroupConfigs } from '../../domain/cgroups/qos-cgroups.js';
import type { ResourceConfig } from '../../domain/cgroups/resource-config.js';
import { toCgroupfs, type CgroupName, type CgroupRoots } from '../../domain/node/cgroup-roots.js';
import type { Pod } from '../../domain/pod/types.js';
import type { AllocatableResult } from '../../domain/resources/allocatable.js';
import type { Logger } from '../../log.js';
import type { ContainerManagerStarted, PodCgroupSweep } from '../../machines/container-manager.machine.js';
import type { CgroupManager } from '../../ports/cgroups.js';
import type { SysctlReader } from '../../ports/host.js';
import { checkKernelTunables } from './kernel-tunables-check.js';

export interface ContainerManagerOptions {
  /** Null without cgroupsPerQOS: nothing is read or written then. */
  cgroups: CgroupManager | null;
  roots: CgroupRoots;
  resources: AllocatableResult;
  /** The kernel's task limit and the reserved pids, for the node-allocatable cgroup's pids limit. */
  pids?: NodePids;
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  pod: PodCgroupSettings;
  /** The pods that are active now (admitted and not yet terminated): the burstable shares' sum. */
  activePods: () => Pod[];
  /** The uids of pods that may still run (active, terminating, orphans being killed). */
  possiblyRunning: () => ReadonlySet<string>;
  /** protectKernelDefaults: the start fails unless every tunable the kubelet expects holds its value. */
  protectKernelDefaults: boolean;
  sysctl: SysctlReader;
  logger: Logger;
}

export interface ContainerManager {
  start(): Promise<ContainerManagerStarted>;
  cgroupParentFor(pod: Pod): string | undefined;
  ensurePod(pod: Pod): Promise<string | undefined>;
  updateQos(): Promise<QosCgroupConfigs | null>;
  readPod(pod: Pod): Promise<ResourceConfig | undefined>;
  desiredPod(pod: Pod): ResourceConfig;
  updatePod(pod: Pod, config: ResourceConfig): Promise<void>;
  cleanup(keep: readonly string[]): Promise<PodCgroupSweep>;
}

const path = (name: CgroupName) => toCgroupfs(name.components);

const sameConfig = (a: ResourceConfig, b: ResourceConfig): boolean => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof ResourceConfig)[]);
  return [...keys].every((k) => a[k] === b[k]);
};

/** Without cgroupsPerQOS (validation then refuses any enforcement): nothing to make, no cgroup parent. */
const withoutQosCgroups = (o: ContainerManagerOptions): ContainerManager => ({
  start: async () => {
    await checkKernelTunables(o.protectKernelDefaults, o.sysctl);
    return { qosCgroups: false, cgroupVersion: 'unused', enforced: [] };
  },
  cgroupParentFor: () => undefined,
  ensurePod: async () => undefined,
  updateQos: async () => null,
  readPod: async () => undefined,
  desiredPod: () => ({}),
  updatePod: async () => {},
  cleanup: async () => ({ removed: [] }),
});

export function createContainerManager(o: ContainerManagerOptions): ContainerManager {
  return o.cgroups && o.roots.qos ? withQosCgroups(o, o.cgroups, o.roots.qos) : withoutQosCgroups(o);
}

function withQosCgroups(o: ContainerManagerOptions, cgroups: CgroupManager, qos: NonNullable<CgroupRoots['qos']>): ContainerManager {
  const { roots, logger } = o;
  let markStarted: () => void = () => {};
  let markFailed: (err: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    markFailed = reject;
  });
  // A start that fails rejects every waiting pod; nobody may be waiting yet.
  started.catch(() => {});

  async function createOrUpdate(name: string, config: ResourceConfig): Promise<void> {
    if (await cgroups.exists(name)) await cgroups.update(name, config);
    else await cgroups.create(name, config);
  }

  // What the QoS cgroups were last set to: a pod start that changes nothing writes nothing (a burst
  // of BestEffort pods would otherwise rewrite the same shares before every pod cgroup).
  let written: QosCgroupConfigs | null = null;
  async function updateQos(): Promise<QosCgroupConfigs> {
    const configs = qosCgroupConfigs(o.activePods());
    if (written !== null && sameConfig(written.burstable, configs.burstable) && sameConfig(written.bestEffort, configs.bestEffort)) return configs;
    written = null; // a failed write below leaves the kernel's values unknown
    await cgroups.update(path(qos.burstable), configs.burstable);
    await cgroups.update(path(qos.bestEffort), configs.bestEffort);
    written = configs;
    return configs;
  }

  async function enforceReserved(key: string, name: CgroupName | null, reserved: Record<string, string>, enforced: string[]): Promise<void> {
    const compressible = roots.enforceNodeAllocatable.includes(`${key}-compressible`);
    if (!roots.enforceNodeAllocatable.includes(key) && !compressible) return;
    if (!name) return; // validation requires the cgroup with the key
    await cgroups.validate(path(name));
    await cgroups.update(path(name), reservedCgroupConfig(reserved, compressible && !roots.enforceNodeAllocatable.includes(key)));
    enforced.push(key);
  }

  return {
    async start() {
      try {
        await checkKernelTunables(o.protectKernelDefaults, o.sysctl);
        const out: ContainerManagerStarted = { qosCgroups: true, cgroupVersion: cgroups.version, enforced: [] };
        // setupNode: createNodeAllocatableCgroups, then the QoS manager's Start.
        const enforcePods = roots.enforceNodeAllocatable.includes('pods');
        const allocatable = nodeAllocatableCgroupConfig(o.resources, enforcePods, o.pids);
        await createOrUpdate(path(roots.nodeAllocatableRoot), allocatable);
        out.nodeAllocatable = { cgroup: path(roots.nodeAllocatableRoot), ...allocatable };
        if (enforcePods) out.enforced.push('pods');
        const configs = qosCgroupConfigs(o.activePods());
        await createOrUpdate(path(qos.burstable), configs.burstable);
        await createOrUpdate(path(qos.bestEffort), configs.bestEffort);
        written = configs;
        out.qos = configs;
        await enforceReserved('system-reserved', roots.systemReservedCgroup, o.systemReserved, out.enforced);
        await enforceReserved('kube-reserved', roots.kubeReservedCgroup, o.kubeReserved, out.enforced);
        logger.info({ ...out }, 'Container manager started');
        markStarted();
        return out;
      } catch (err) {
        markFailed(err);
        throw err;
      }
    },

    cgroupParentFor: (pod) => cgroups.literalName(toCgroupfs(podCgroupName(qos, pod))),

    async ensurePod(pod) {
      await started;
      const name = toCgroupfs(podCgroupName(qos, pod));
      if (!(await cgroups.exists(name))) {
        // Go updates the QoS cgroups before a new pod cgroup, so a Burstable pod's share counts at once.
        await updateQos();
        await cgroups.create(name, resourceConfigForPod(pod, o.pod));
      }
      return cgroups.literalName(name);
    },

    updateQos: async () => {
      await started;
      return updateQos();
    },

    async readPod(pod) {
      await started;
      const name = toCgroupfs(podCgroupName(qos, pod));
      return (await cgroups.exists(name)) ? cgroups.read(name) : undefined;
    },

    desiredPod: (pod) => resourceConfigForPod(pod, o.pod),

    async updatePod(pod, config) {
      await started;
      await cgroups.update(toCgroupfs(podCgroupName(qos, pod)), config);
    },

    async cleanup(keep) {
      await started;
      // The live view, as Go's housekeeping reads it: a pod added since `keep` was taken is kept too.
      const running = new Set([...keep, ...o.possiblyRunning()]);
      const removed: string[] = [];
      for (const parent of podCgroupParents(qos)) {
        for (const child of await cgroups.children(path(parent))) {
          const uid = podUidOfCgroup(child);
          if (uid === null || running.has(uid)) continue;
          const name = `${path(parent)}/${child}`.replace('//', '/');
          logger.info({ podUid: uid, cgroup: name }, 'Orphaned pod found, removing pod cgroups');
          await cgroups.destroy(name);
          removed.push(name);
        }
      }
      if (removed.length > 0) await updateQos();
      return { removed };
    },
  };
}
