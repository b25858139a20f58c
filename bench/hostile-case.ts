/**
 * What every case of the hostile-peer bench shares: the kubelet it attacks, and what a case reports.
 * A case's outcome comes from what the kubelet did (its log, the connections it closed, the calls it
 * refused), not from what the case expected.
 */
import type { RunningDaemon } from './kubelet-daemon.js';

export type HostileOutcome = 'refused' | 'bounded' | 'answered';

export interface HostileKubelet {
  daemon: RunningDaemon;
  /** --root-dir. */
  root: string;
  /** --device-plugins-dir, where kubelet.sock is. */
  devicePluginsDir: string;
  /** The plugin watcher's registry (<root>/plugins_registry). */
  pluginsDir: string;
  /** The pod resources API's socket. */
  podResourcesSocket: string;
  /** The kubelet's log lines (JSON) from now on, until the returned function is called; it answers them. */
  logFromNow(): () => string[];
}

export interface HostileResult {
  outcome: HostileOutcome;
  /** What the kubelet did, in a few words: the counts behind the outcome. */
  detail: string;
}

export interface HostileCase {
  name: string;
  /** Readies, before each window opens, what the peer brings that the kubelet cannot see yet. */
  prepare?(kubelet: HostileKubelet): void;
  /** Runs the attack on the kubelet for `seconds` and ends it, everything it started stopped. */
  attack(kubelet: HostileKubelet, seconds: number): Promise<HostileResult>;
}

/** The log lines whose message is `msg`. */
export const linesWith = (lines: readonly string[], msg: string): string[] => lines.filter((l) => l.includes(`"msg":"${msg}`));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
