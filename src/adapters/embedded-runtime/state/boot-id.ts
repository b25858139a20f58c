/** The kernel's boot id, which tells a sandbox left from an earlier boot (see records.ts). */
import { readFileSync } from 'node:fs';

/** /proc/sys/kernel/random/boot_id: changes on every boot. Undefined where it cannot be read. */
export function currentBootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
