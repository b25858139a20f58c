/**
 * Which running containers may have exited since they were last checked, without reading anything.
 *
 * Checking every running container on every List* means a read of its exit.json (failing with
 * ENOENT) and of /proc/<pid>/stat for each. The PLEG's relist lists every second and pod workers
 * list too, so on a node of many pods that would be most of an idle kubelet's CPU
 * (docs/FINDINGS.md). Instead, an inotify watch (fs.watch) on each running
 * container's shim directory marks the container when its shim writes exit.json (the shim's normal
 * way of reporting an exit), and the processes' liveness is read again only every LIVENESS_RECHECK_MS:
 * that covers a shim killed before it could write exit.json, which nothing announces. Such a recheck
 * need not look for exit.json (the watch would have said): it is `liveness`, a full check `full`.
 * Calls about one container (ContainerStatus, stop, exec) still check it in full.
 */
import { watch, type FSWatcher } from 'node:fs';
import { EXIT_FILE } from '../shim/shim-protocol.js';

/** How stale "still running" may get for a container whose shim vanished without a word. */
export const LIVENESS_RECHECK_MS = 5_000;

export type ExitCheck = 'none' | 'liveness' | 'full';

interface Entry {
  /** null: the directory could not be watched, so every list checks this container in full. */
  watcher: FSWatcher | null;
  /** Set by the watch (or at the start): the next list must check in full. */
  dirty: boolean;
  checkedAtMs: number;
}

export class ExitWatch {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly nowMs: () => number,
    private readonly recheckMs = LIVENESS_RECHECK_MS,
  ) {}

  /**
   * What the container needs: nothing, its processes' liveness read again, or a full check. The
   * first call for a container starts its watch (in the directory `shimDir` names, asked only then)
   * and answers `full`: its exit.json may have been written before the watch existed.
   */
  needsCheck(id: string, shimDir: () => string): ExitCheck {
    const entry = this.entries.get(id) ?? this.start(id, shimDir());
    if (entry.watcher === null || entry.dirty) return 'full';
    return this.nowMs() - entry.checkedAtMs >= this.recheckMs ? 'liveness' : 'none';
  }

  /** A check found the container still running. */
  checked(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.dirty = false;
    entry.checkedAtMs = this.nowMs();
  }

  /** The container exited or was removed: nothing more to watch. */
  forget(id: string): void {
    this.entries.get(id)?.watcher?.close();
    this.entries.delete(id);
  }

  close(): void {
    for (const id of [...this.entries.keys()]) this.forget(id);
  }

  private start(id: string, shimDir: string): Entry {
    const entry: Entry = { watcher: null, dirty: true, checkedAtMs: 0 };
    try {
      // persistent: false — a watch must never keep the process alive.
      entry.watcher = watch(shimDir, { persistent: false }, (_event, name) => {
        // Linux names the file; a null name (overflow) may hide anything, so it marks too.
        if (name === null || name === EXIT_FILE) entry.dirty = true;
      });
      entry.watcher.on('error', () => {
        entry.watcher?.close();
        entry.watcher = null;
      });
    } catch {
      entry.watcher = null;
    }
    this.entries.set(id, entry);
    return entry;
  }
}
