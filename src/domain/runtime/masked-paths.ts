/**
 * The paths under /proc and /sys a container sees masked (bound over with nothing) or read-only
 * (Go: securitycontext.ConvertToRuntimeMaskedPaths / ConvertToRuntimeReadonlyPaths). The kubelet
 * sends them for every container, privileged ones included (the runtime clears them for those);
 * `procMount: Unmasked` sends empty lists. The lists are Go v1.26's; later versions mask
 * /proc/asound instead of making it read-only, and mask /sys/devices/virtual/powercap.
 * containerd applies exactly what it is sent: a kubelet sending no list leaves /proc unmasked.
 */
import type { SecurityContext } from '../pod/types.js';

export const DEFAULT_MASKED_PATHS: readonly string[] = [
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
];

export const DEFAULT_READONLY_PATHS: readonly string[] = [
  '/proc/asound',
  '/proc/bus',
  '/proc/fs',
  '/proc/irq',
  '/proc/sys',
  '/proc/sysrq-trigger',
];

export function procMountPaths(procMount: SecurityContext['procMount']): { masked_paths: string[]; readonly_paths: string[] } {
  if (procMount === 'Unmasked') return { masked_paths: [], readonly_paths: [] };
  return { masked_paths: [...DEFAULT_MASKED_PATHS], readonly_paths: [...DEFAULT_READONLY_PATHS] };
}
