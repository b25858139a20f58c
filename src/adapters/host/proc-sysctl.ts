/**
 * Kernel tunables read from /proc/sys (Go: component-helpers' sysctl GetSysctl). The root is a
 * parameter so unit tests can read a directory of their own. Errors carry Go's wording for the
 * aggregate start-up message: `open <path>: <reason>` when the file cannot be read, Atoi's when
 * its text is not an integer.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSysctlValue } from '../../domain/node/kernel-tunables.js';
import type { SysctlReader } from '../../ports/host.js';

/** Node's "ENOENT: no such file or directory, open '/x'" as Go's "open /x: no such file or directory". */
function goOpenError(path: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const reason = /^[A-Z]+: (.*), open '.*'$/.exec(message)?.[1] ?? message;
  return new Error(`open ${path}: ${reason}`, { cause: err });
}

export class ProcSysctlReader implements SysctlReader {
  constructor(private readonly root = '/proc/sys') {}

  async read(flag: string): Promise<number> {
    const path = join(this.root, flag);
    const text = await readFile(path, 'utf8').catch((err: unknown) => {
      throw goOpenError(path, err);
    });
    return parseSysctlValue(text);
  }
}
