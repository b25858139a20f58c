/** command.dependencies' event log: opened once its place is known, or turned off. */
import type { KubeletConfiguration } from '../domain/config/types.js';

export interface JournalOpener {
  /** Open the event log once its place is known: header written, early records flushed. */
  open(opts: { path: string; nodeName: string; config: KubeletConfiguration }): Promise<{ path: string; close: () => Promise<void> }>;
  /** The journal is off (--event-log=): drop what was kept. */
  disable(): void;
}
