/**
 * What the runtime manager needs from the node besides the CRI: a few files under --pod-logs-dir
 * and /etc, hook requests, and the machine's memory. Real: src/adapters/host/runtime-host.ts;
 * tests: test/fakes/fake-runtime-host.ts.
 */
import type { HttpGet } from './http-get.js';

export interface RuntimeHost {
  /** Creates a directory and its parents, mode 0755 (Go's os.MkdirAll for a pod's log directory). */
  makeDirectory(path: string): Promise<void>;
  /** Reads a whole text file (--resolv-conf). */
  readTextFile(path: string): Promise<string>;
  /** The names of the regular files in a directory; none when the directory does not exist. */
  listFiles(dir: string): Promise<string[]>;
  /** Sends httpGet lifecycle hooks. */
  httpGet: HttpGet;
  /** This machine's memory in bytes, when the caller knows no better (no machine info read). */
  memoryCapacityBytes(): number;
  /** Whether SELinux is on (Go's selinux.GetEnabled): the kubelet then asks for volume relabelling. */
  selinuxEnabled(): boolean;
  /** Whether the kernel has AppArmor enabled (runc's apparmor.IsEnabled); a pod asking for a profile needs it. */
  appArmorEnabled(): boolean;
}
