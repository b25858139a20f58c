/**
 * Configuration values the Go kubelet refuses outside ValidateKubeletConfiguration, at the place
 * that first reads them during start-up: parseResourceList for the reserved
 * resources, eviction.ParseThresholdConfig for the signals, the CPU and memory managers' policy
 * lookups, the authorizer's mode switch, ParseQOSReserved, the container log manager's size, and
 * the sysctl patterns. kubelet-ts refuses them with the rest of the configuration, every field
 * named, so a bad value stops start-up in command.validateConfig instead of later.
 */
import { percentageValue } from '../resources/percentage.js';
import { quantityNumber } from '../resources/quantity.js';
import type { KubeletConfiguration } from './types.js';
import { sysctlNamespace, toDottedSysctl } from '../pod/sysctls.js';

type Fail = (field: string, value: unknown, message: string) => void;

/** The eviction signals Go's eviction manager knows (pkg/kubelet/eviction/api). */
export const EVICTION_SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'pid.available',
] as const;

const CPU_MANAGER_POLICIES = ['none', 'static'];
const MEMORY_MANAGER_POLICIES = ['None', 'Static'];
const AUTHORIZATION_MODES = ['AlwaysAllow', 'Webhook'];
// A sysctl name or a prefix pattern ending in `*`: segments of lower-case letters, digits, `-` and
// `_`, separated by `.` or `/` (Go's IsValidSysctlPattern).
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_PATTERN = new RegExp(`^(${SYSCTL_SEGMENT}[./])*(${SYSCTL_SEGMENT}|\\*|${SYSCTL_SEGMENT}\\*)$`);

const isNegative = (text: string): boolean => (quantityNumber(text) ?? 0) < 0;

export function validateConfiguredValues(kc: KubeletConfiguration, fail: Fail): void {
  for (const field of ['kubeReserved', 'systemReserved'] as const) {
    for (const [name, value] of Object.entries(kc[field])) {
      if (isNegative(value)) fail(`${field}.${name}`, value, `${field} (--${field === 'kubeReserved' ? 'kube' : 'system'}-reserved) resource quantity for ${JSON.stringify(name)} cannot be negative: ${value}`);
    }
  }
  for (const field of ['evictionHard', 'evictionSoft', 'evictionSoftGracePeriod', 'evictionMinimumReclaim'] as const) {
    for (const signal of Object.keys(kc[field])) {
      if (!(EVICTION_SIGNALS as readonly string[]).includes(signal)) fail(`${field}.${signal}`, signal, `${field} unsupported eviction signal ${signal}`);
    }
  }
  if (!CPU_MANAGER_POLICIES.includes(kc.cpuManagerPolicy)) {
    fail('cpuManagerPolicy', kc.cpuManagerPolicy, `cpuManagerPolicy (--cpu-manager-policy) unknown policy: ${JSON.stringify(kc.cpuManagerPolicy)}; valid policies are "none" and "static"`);
  }
  if (!MEMORY_MANAGER_POLICIES.includes(kc.memoryManagerPolicy)) {
    fail('memoryManagerPolicy', kc.memoryManagerPolicy, `memoryManagerPolicy (--memory-manager-policy) unknown policy: ${JSON.stringify(kc.memoryManagerPolicy)}; valid policies are "None" and "Static"`);
  }
  if (!AUTHORIZATION_MODES.includes(kc.authorization.mode)) {
    fail('authorization.mode', kc.authorization.mode, `authorization.mode (--authorization-mode) unknown authorization mode ${JSON.stringify(kc.authorization.mode)}; valid modes are "AlwaysAllow" and "Webhook"`);
  }
  for (const [resource, value] of Object.entries(kc.qosReserved)) {
    const pct = percentageValue(value);
    if (resource !== 'memory') fail(`qosReserved.${resource}`, value, `qosReserved (--qos-reserved) cannot reserve ${JSON.stringify(resource)} resource: only memory is supported`);
    else if (pct === undefined || pct < 0 || pct > 100) fail(`qosReserved.${resource}`, value, `qosReserved (--qos-reserved) ${resource}=${value} must be a percentage between 0% and 100%`);
  }
  const logMax = quantityNumber(kc.containerLogMaxSize);
  if (logMax === undefined || logMax <= 0) {
    fail('containerLogMaxSize', kc.containerLogMaxSize, `containerLogMaxSize (--container-log-max-size) ${JSON.stringify(kc.containerLogMaxSize)} must be a positive quantity`);
  }
  kc.allowedUnsafeSysctls.forEach((pattern, i) => {
    if (!SYSCTL_PATTERN.test(pattern)) fail(`allowedUnsafeSysctls[${i}]`, pattern, `allowedUnsafeSysctls (--allowed-unsafe-sysctls) ${JSON.stringify(pattern)} is not a valid sysctl pattern`);
    // Go's NewAllowlist refuses to start with a sysctl the kernel does not namespace.
    else if (sysctlNamespace(toDottedSysctl(pattern).replace(/\*$/, '')) === undefined) {
      fail(`allowedUnsafeSysctls[${i}]`, pattern, `allowedUnsafeSysctls (--allowed-unsafe-sysctls): the sysctls ${JSON.stringify(pattern)} are not known to be namespaced`);
    }
  });
  kc.reservedMemory.forEach((reservation, i) => {
    for (const [resource, value] of Object.entries(reservation.limits)) {
      const amount = quantityNumber(value);
      if (amount === undefined || amount < 0) fail(`reservedMemory[${i}].limits.${resource}`, value, `reservedMemory (--reserved-memory) ${resource}=${value} for NUMA node ${reservation.numaNode} must be a non-negative quantity`);
    }
  });
}
