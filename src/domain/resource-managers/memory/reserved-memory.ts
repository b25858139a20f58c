/**
 * reservedMemory (the KubeletConfiguration field, `--reserved-memory`) as the Static memory manager
 * checks it at start-up (Go: memory_manager.go validateReservedMemory, convertReserved, and
 * NewPolicyStatic): it must name NUMA nodes the machine has, and per memory resource its total must
 * equal what Node Allocatable keeps back: kube-reserved + system-reserved + the hard eviction
 * threshold on memory.available. The Static policy also needs some regular memory reserved.
 */
import type { MemoryReservation } from '../../config/types.js';
import { parseThresholdValue, thresholdQuantity } from '../../eviction/thresholds.js';
import { quantityValue, tryParseQuantity } from '../../resources/quantity.js';
import { isMemoryResource } from './machine-state.js';

export interface ReservationInput {
  numaNodes: number[];
  memoryCapacityBytes: number;
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  evictionHard: Record<string, string>;
  reservedMemory: MemoryReservation[];
}

/** A sum of quantities, and whether Go prints it with binary suffixes (the format of its first non-zero term). */
interface Sum { bytes: bigint; binary: boolean | null }

function addBytes(sum: Sum, bytes: bigint, binary: boolean): Sum {
  return { bytes: sum.bytes + bytes, binary: sum.binary ?? (bytes === 0n ? null : binary) };
}

function add(sum: Sum, text: string | undefined): Sum {
  const q = text === undefined ? undefined : tryParseQuantity(text);
  return q === undefined ? sum : addBytes(sum, quantityValue(q), /[KMGTPE]i$/.test(text ?? ''));
}

/** Go's Quantity.String for an integer: binary suffixes when the first term had one, else decimal ones. */
function quantityText(sum: Sum): string {
  const binary = sum.binary === true;
  let v = sum.bytes;
  if (v === 0n) return '0';
  const [base, suffixes] = binary ? [1024n, ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']] : [1000n, ['', 'k', 'M', 'G', 'T', 'P', 'E']];
  if (binary && v < 1024n) return String(v);
  let i = 0;
  while (i < suffixes.length - 1 && v % base === 0n) {
    v /= base;
    i++;
  }
  return `${v}${suffixes[i] ?? ''}`;
}

const zero: Sum = { bytes: 0n, binary: null };

/** Go's GetNodeAllocatableReservation, the memory resources only. */
function allocatableReservation(input: ReservationInput): Record<string, Sum> {
  const names = new Set([...Object.keys(input.kubeReserved), ...Object.keys(input.systemReserved), 'memory'].filter(isMemoryResource));
  const out: Record<string, Sum> = {};
  for (const name of names) {
    let sum = add(add(zero, input.systemReserved[name]), input.kubeReserved[name]);
    if (name === 'memory') {
      const text = input.evictionHard['memory.available'];
      const value = text === undefined ? null : parseThresholdValue(text);
      // Go prints a percentage threshold's amount as a binary quantity.
      if (value !== null) sum = 'quantity' in value ? add(sum, value.text) : addBytes(sum, BigInt(thresholdQuantity(value, input.memoryCapacityBytes)), true);
    }
    if (sum.bytes !== 0n) out[name] = sum;
  }
  return out;
}

/** Why the Static policy cannot start with this reservation, in Go's words; null when it can. */
export function memoryReservationError(input: ReservationInput): string | null {
  const totals: Record<string, Sum> = {};
  for (const r of input.reservedMemory) {
    if (!input.numaNodes.includes(r.numaNode)) return `the reserved memory configuration references a NUMA node ${r.numaNode} that does not exist on this machine`;
    for (const [name, text] of Object.entries(r.limits)) totals[name] = add(totals[name] ?? zero, text);
  }
  const fromAllocatable = allocatableReservation(input);
  for (const name of [...new Set([...Object.keys(totals), ...Object.keys(fromAllocatable)])].sort()) {
    const reserved = totals[name] ?? zero;
    const expected = fromAllocatable[name] ?? zero;
    if (reserved.bytes !== expected.bytes) {
      return `the total amount ${JSON.stringify(quantityText(reserved))} of type ${JSON.stringify(name)} is not equal to the value ${JSON.stringify(quantityText(expected))} determined by Node Allocatable feature`;
    }
  }
  if ((totals.memory ?? zero).bytes === 0n) return '[memorymanager] you should specify the system reserved memory';
  return null;
}

/** Go's convertReserved: bytes per resource, per NUMA node. */
export function reservedByNode(reservedMemory: readonly MemoryReservation[]): Record<number, Record<string, number>> {
  const out: Record<number, Record<string, number>> = {};
  for (const r of reservedMemory) {
    const node = (out[r.numaNode] ??= {});
    for (const [name, text] of Object.entries(r.limits)) {
      const q = tryParseQuantity(text);
      if (q !== undefined) node[name] = Number(quantityValue(q));
    }
  }
  return out;
}
