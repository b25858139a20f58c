import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcSysctlReader } from '../../../src/adapters/host/proc-sysctl.js';
import { checkKernelTunables } from '../../../src/actors/container-manager/kernel-tunables-check.js';
import { KERNEL_TUNABLES } from '../../../src/domain/node/kernel-tunables.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kts-sysctl-'));
  for (const t of KERNEL_TUNABLES) tunable(t.flag, `${t.expected}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tunable(flag: string, text: string): void {
  mkdirSync(dirname(join(root, flag)), { recursive: true });
  writeFileSync(join(root, flag), text);
}

describe('ProcSysctlReader over a /proc/sys of its own', () => {
  it('reads the values as the kernel writes them', async () => {
    tunable('kernel/panic', '10\n');
    expect(await new ProcSysctlReader(root).read('kernel/panic')).toBe(10);
  });

  it('names a missing tunable as Go does', async () => {
    rmSync(join(root, 'vm/panic_on_oom'));
    await expect(new ProcSysctlReader(root).read('vm/panic_on_oom')).rejects.toThrow(`open ${root}/vm/panic_on_oom: no such file or directory`);
  });

  it('passes the protectKernelDefaults check when every tunable is as expected', async () => {
    await expect(checkKernelTunables(true, new ProcSysctlReader(root))).resolves.toBeUndefined();
  });

  it('fails it naming both tunables that differ, with their expected and actual values', async () => {
    tunable('vm/overcommit_memory', '0\n');
    tunable('kernel/keys/root_maxbytes', '20000\n');
    await expect(checkKernelTunables(true, new ProcSysctlReader(root))).rejects.toThrow(
      '[invalid kernel flag: vm/overcommit_memory, expected value: 1, actual value: 0, invalid kernel flag: kernel/keys/root_maxbytes, expected value: 25000000, actual value: 20000]',
    );
  });

  it('reads the host\'s own /proc/sys', async () => {
    expect(await new ProcSysctlReader().read('vm/overcommit_memory')).toBeTypeOf('number');
  });
});
