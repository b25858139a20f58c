/**
 * The kernel's hostname (Go's os.Hostname, which reads /proc/sys/kernel/hostname; Node's
 * os.hostname() is uname's nodename, the same value).
 */
import { hostname } from 'node:os';
import type { HostnameSource } from '../../ports/host.js';

export class OsHostname implements HostnameSource {
  hostname(): string {
    return hostname();
  }
}
