/**
 * setupNode's kernel tunables step (container_manager_linux.go setupKernelTunables), run by the
 * container manager's start with or without QoS cgroups, as Go runs it before either. With
 * protectKernelDefaults a tunable set otherwise, or unreadable, fails the start. Without it Go
 * writes the expected values; kubelet-ts leaves the host's kernel as it is (docs/DIFFERENCES.md).
 */
import { KERNEL_TUNABLES, kernelTunablesError, type TunableReading } from '../../domain/node/kernel-tunables.js';
import type { SysctlReader } from '../../ports/host.js';

export async function checkKernelTunables(protectKernelDefaults: boolean, sysctl: SysctlReader): Promise<void> {
  if (!protectKernelDefaults) return;
  const readings = await Promise.all(KERNEL_TUNABLES.map(async (t): Promise<TunableReading> => {
    try {
      return { ...t, value: await sysctl.read(t.flag) };
    } catch (err) {
      return { ...t, error: err instanceof Error ? err.message : String(err) };
    }
  }));
  const error = kernelTunablesError(readings);
  if (error) throw error;
}
