/**
 * The CPU manager's construction (Go's cpumanager.NewManager and NewStaticPolicy): with the static
 * policy, the options checked, the number of reserved CPUs from --reserved-cpus or from the kube and
 * system reserved cpu (rounded up; the static policy needs a non-zero reservation), and which CPUs
 * those are (--reserved-cpus, or the lowest cores taken by topology). Errors carry Go's text.
 */
import { parseQuantity, quantityMilliValue } from '../resources/quantity.js';
import type { CpuInventory, CpuPolicyOptions, CpuTopology } from './cpu-inventory.js';
import { allCpus } from './cpu-pool.js';
import { formatCpuSet, parseCpuSet } from './cpu-set.js';
import { takeByTopologyDistributed, takeByTopologyPacked } from './cpu-take.js';
import { cpuShape, cpusPerCore } from './cpu-details.js';

export const CPU_OPTION_FULL_PCPUS_ONLY = 'full-pcpus-only';
export const CPU_OPTION_DISTRIBUTE_ACROSS_NUMA = 'distribute-cpus-across-numa';
/** Go's options kubelet-ts does not act on: refused rather than silently ignored. */
const UNSUPPORTED_OPTIONS = ['align-by-socket', 'distribute-cpus-across-cores', 'strict-cpu-reservation', 'prefer-align-cpus-by-uncorecache'];

/** Go's strconv.ParseBool. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** Go's NewStaticPolicyOptions: each option known, allowed by its gate (both kept here behind the beta gate), a boolean. */
export function cpuPolicyOptions(options: Record<string, string>, betaOptionsGate: boolean): { ok: true; options: CpuPolicyOptions } | { ok: false; message: string } {
  const result: CpuPolicyOptions = { fullPcpusOnly: false, distributeCpusAcrossNuma: false };
  for (const name of Object.keys(options).sort()) {
    const value = options[name]!;
    if (UNSUPPORTED_OPTIONS.includes(name)) return { ok: false, message: `CPU Manager Policy option ${JSON.stringify(name)} is not supported by kubelet-ts` };
    if (name !== CPU_OPTION_FULL_PCPUS_ONLY && name !== CPU_OPTION_DISTRIBUTE_ACROSS_NUMA) return { ok: false, message: `unknown CPU Manager Policy option: ${JSON.stringify(name)}` };
    if (!betaOptionsGate) return { ok: false, message: `CPU Manager Policy Beta-level Options not enabled, but option ${JSON.stringify(name)} provided` };
    const on = parseGoBool(value);
    if (on === undefined) return { ok: false, message: `bad value for option ${JSON.stringify(name)}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax` };
    if (name === CPU_OPTION_FULL_PCPUS_ONLY) result.fullPcpusOnly = on;
    else result.distributeCpusAcrossNuma = on;
  }
  return { ok: true, options: result };
}

export interface CpuManagerSettings {
  /** cpuManagerPolicy: none or static (validated). */
  policy: string;
  policyOptions: Record<string, string>;
  /** The CPUManagerPolicyBetaOptions gate. */
  betaOptionsGate: boolean;
  /** reservedSystemCPUs ("" when not set). */
  reservedSystemCPUs: string;
  /** The kube and system reserved cpu quantities, when given. */
  kubeReservedCpu?: string;
  systemReservedCpu?: string;
  topology: CpuTopology;
}

/** The static policy's inventory, null with the none policy, or Go's refusal. */
export function cpuManagerInventory(s: CpuManagerSettings): { ok: true; inventory: CpuInventory | null } | { ok: false; message: string } {
  if (s.policy !== 'static') return { ok: true, inventory: null };
  const specific = s.reservedSystemCPUs === '' ? [] : parseCpuSet(s.reservedSystemCPUs);
  // --reserved-cpus overwrites the kube and system reserved cpu with its size (Go's server.go).
  const reservedMillis = specific.length > 0
    ? BigInt(specific.length) * 1000n
    : [s.kubeReservedCpu, s.systemReservedCpu].reduce((sum, q) => sum + (q === undefined ? 0n : quantityMilliValue(parseQuantity(q))), 0n);
  if (reservedMillis <= 0n) return { ok: false, message: '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero' };
  const numReserved = Number((reservedMillis + 999n) / 1000n);
  const parsed = cpuPolicyOptions(s.policyOptions, s.betaOptionsGate);
  if (!parsed.ok) return { ok: false, message: `new static policy error: ${parsed.message}` };
  const options = parsed.options;
  let reserved = specific;
  if (reserved.length === 0) {
    const all = allCpus({ topology: s.topology, reserved: [], options });
    const groupSize = options.fullPcpusOnly ? cpusPerCore(cpuShape(s.topology)) : 1;
    const taken = options.distributeCpusAcrossNuma ? takeByTopologyDistributed(s.topology, all, numReserved, groupSize) : takeByTopologyPacked(s.topology, all, numReserved);
    reserved = taken.ok ? taken.cpus : [];
  }
  if (reserved.length !== numReserved) {
    return { ok: false, message: `new static policy error: [cpumanager] unable to reserve the required amount of CPUs (size of ${formatCpuSet(reserved)} did not equal ${numReserved})` };
  }
  return { ok: true, inventory: { topology: s.topology, reserved, options } };
}

/**
 * --reserved-cpus supersedes the cpu of --kube-reserved and --system-reserved: the system reserves
 * as many CPUs as it names (Go's server.go rewrites the two maps before the container manager).
 */
export function reservationsWithReservedCpus(kubeReserved: Record<string, string>, systemReserved: Record<string, string>, reservedSystemCPUs: string): { kubeReserved: Record<string, string>; systemReserved: Record<string, string> } {
  const count = reservedSystemCPUs === '' ? 0 : parseCpuSet(reservedSystemCPUs).length;
  if (count === 0) return { kubeReserved, systemReserved };
  const { cpu: _superseded, ...kubeWithoutCpu } = kubeReserved;
  return { kubeReserved: kubeWithoutCpu, systemReserved: { ...systemReserved, cpu: String(count) } };
}
