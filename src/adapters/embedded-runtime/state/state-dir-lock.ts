/**
 * One embedded runtime per state directory. Two runtimes on one stateDir would each believe they own
 * the same containers (the lab saw what two containerds on one root do: NOTES F3). The lock is a file
 * naming the holder's pid and start time; a holder that is gone (crash, SIGKILL) does not block.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import { identifyProcess, isSameProcessAlive, type ProcessIdentity } from '../shim/proc-stat.js';

const LOCK_FILE = 'runtime.lock';

export interface StateDirLock {
  release(): Promise<void>;
}

export async function lockStateDir(stateDir: string): Promise<StateDirLock> {
  const path = join(stateDir, LOCK_FILE);
  const me = identifyProcess(process.pid) ?? { pid: process.pid, startTime: '' };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      return { release: () => unlink(path).catch(() => undefined) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = await readHolder(path);
    if (holder && (holder.pid === process.pid || isSameProcessAlive(holder))) {
      throw new KubeletError('KLT_ERR_CRI_FAILED', `embedded runtime state dir ${stateDir} is in use by pid ${holder.pid}`);
    }
    await unlink(path).catch(() => undefined); // stale: its holder is gone
  }
  throw new KubeletError('KLT_ERR_CRI_FAILED', `could not lock embedded runtime state dir ${stateDir}`);
}

async function readHolder(path: string): Promise<ProcessIdentity | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<ProcessIdentity>;
    return typeof value.pid === 'number' && typeof value.startTime === 'string' ? { pid: value.pid, startTime: value.startTime } : undefined;
  } catch {
    return undefined;
  }
}
