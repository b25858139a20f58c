/**
 * The kernel tunables the kubelet expects (Go: container_manager_linux.go setupKernelTunables, with
 * the values of component-helpers' sysctl package), and what `protectKernelDefaults: true` makes of
 * the values the host has: one error per tunable read wrong or set otherwise, worded as Go's, all of
 * them in one aggregate. Go walks a map, so its order varies; ours is the declaration order.
 */
import { KubeletError } from '../errors.js';
import { aggregateErrors } from '../volumes/volume-errors.js';

export interface KernelTunable {
  /** The path below /proc/sys, as Go names the flag in its message. */
  flag: string;
  expected: number;
}

export const KERNEL_TUNABLES: readonly KernelTunable[] = [
  { flag: 'vm/overcommit_memory', expected: 1 }, // no overcommit heuristics: the kubelet does the accounting
  { flag: 'vm/panic_on_oom', expected: 0 }, // an OOM invokes the OOM killer, not a panic
  { flag: 'kernel/panic', expected: 10 }, // reboot ten seconds after a panic
  { flag: 'kernel/panic_on_oops', expected: 1 },
  { flag: 'kernel/keys/root_maxkeys', expected: 1_000_000 }, // runtimes create a key per container
  { flag: 'kernel/keys/root_maxbytes', expected: 25_000_000 }, // 25 bytes per key
];

/** A tunable as read: its value, or why it could not be read (Go adds that error as it is). */
export type TunableReading = KernelTunable & ({ value: number } | { error: string });

/**
 * A sysctl file's text as Go reads it: blanks and newlines trimmed at both ends, then a decimal
 * integer (strconv.Atoi). Anything else is an error worded as Atoi's.
 */
export function parseSysctlValue(text: string): number {
  const trimmed = text.replace(/^[ \n]+|[ \n]+$/g, '');
  if (!/^[+-]?\d+$/.test(trimmed)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(trimmed)}: invalid syntax`);
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(trimmed)}: value out of range`);
  return value;
}

/** Why the start must fail with protectKernelDefaults, or undefined when every tunable is as expected. */
export function kernelTunablesError(readings: readonly TunableReading[]): KubeletError | undefined {
  const errors: KubeletError[] = [];
  for (const r of readings) {
    if ('error' in r) errors.push(new KubeletError('KLT_ERR_HOST_IO', r.error));
    else if (r.value !== r.expected) {
      errors.push(new KubeletError('KLT_ERR_CONFIG_INVALID', `invalid kernel flag: ${r.flag}, expected value: ${r.expected}, actual value: ${r.value}`));
    }
  }
  return aggregateErrors(errors);
}
