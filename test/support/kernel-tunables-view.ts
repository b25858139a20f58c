/**
 * The kernel tunables protectKernelDefaults checks, as a kubelet under test reads them: files holding
 * chosen values (Go's unless told otherwise) bind-mounted over /proc/sys in a mount namespace that is
 * not the host's. A host's own values are its image's (a VM's kernel line may set kernel.panic=1) or
 * whatever a Go kubelet last wrote there; a test reads neither, and writes no tunable of the host.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KERNEL_TUNABLES } from '../../src/domain/node/kernel-tunables.js';

/** The shell commands that bind `dir`'s files over /proc/sys, each tunable at Go's value unless `values` sets it. */
export function tunableBinds(dir: string, values: Readonly<Record<string, number>> = {}): string {
  mkdirSync(dir, { recursive: true });
  return KERNEL_TUNABLES.map((t, i) => {
    const file = join(dir, `tunable-${i}`);
    writeFileSync(file, `${values[t.flag] ?? t.expected}\n`);
    return `mount --bind ${file} /proc/sys/${t.flag}`;
  }).join(' && ');
}

/**
 * The argv before a command that runs it in a mount namespace of its own (private propagation, so the
 * host never sees the mounts) with those binds: unshare and sh exec in turn, so the command keeps the
 * process it was started as.
 */
export function withTunables(dir: string, values: Readonly<Record<string, number>> = {}): [string, ...string[]] {
  return ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `${tunableBinds(dir, values)} && exec "$@"`, 'sh'];
}
