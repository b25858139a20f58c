/**
 * What the mount planner (mount-plan.ts) needs to know about the host — can it make mount namespaces
 * at all, what a path is, its real path, the mount table, is SELinux on — read from the real host by
 * LinuxMountHost, or faked in tests. Also where the util-linux tools are that set up a container's
 * mount namespace (unshare, mount, nsenter) and the two it needs besides (sh, env).
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MountTable, parseMountInfo } from '../../host/mount-info.js';

/** A directory, or anything else a bind mount can take (file, socket, device). */
export type PathKind = 'directory' | 'other';

export interface MountHost {
  /** Why containers cannot get a mount namespace of their own here (no CAP_SYS_ADMIN, a tool missing); undefined when they can. */
  unavailable(): string | undefined;
  selinuxEnabled(): boolean;
  /** What a path names, following symlinks; undefined when there is nothing there. */
  kindOf(path: string): Promise<PathKind | undefined>;
  realpath(path: string): Promise<string>;
  mountTable(): Promise<MountTable>;
}

export interface MountTools {
  unshare: string;
  mount: string;
  nsenter: string;
  sh: string;
  env: string;
}

/** Bit 21 of the capability sets (linux/capability.h): mount, unshare(CLONE_NEWNS), setns. */
const CAP_SYS_ADMIN = 21n;
const TOOL_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

export class LinuxMountHost implements MountHost {
  private readonly found: { tools: MountTools } | { missing: string };
  private readonly capSysAdmin: boolean;

  constructor() {
    this.found = findTools();
    this.capSysAdmin = hasCapSysAdmin();
  }

  /** The tools, or undefined when one is missing (then unavailable() says which). */
  get tools(): MountTools | undefined {
    return 'tools' in this.found ? this.found.tools : undefined;
  }

  unavailable(): string | undefined {
    if (!this.capSysAdmin) {
      return 'the embedded runtime lacks CAP_SYS_ADMIN (it must run as root) to give the container a mount namespace of its own';
    }
    return 'missing' in this.found ? `the embedded runtime needs ${this.found.missing} to give the container a mount namespace of its own, and it is not installed` : undefined;
  }

  selinuxEnabled(): boolean {
    return existsSync('/sys/fs/selinux/enforce');
  }

  async kindOf(path: string): Promise<PathKind | undefined> {
    try {
      return (await stat(path)).isDirectory() ? 'directory' : 'other';
    } catch {
      return undefined;
    }
  }

  realpath(path: string): Promise<string> {
    return realpath(path);
  }

  async mountTable(): Promise<MountTable> {
    return new MountTable(parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8')));
  }
}

function hasCapSysAdmin(): boolean {
  try {
    const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('CapEff:'));
    return line !== undefined && ((BigInt(`0x${line.slice('CapEff:'.length).trim()}`) >> CAP_SYS_ADMIN) & 1n) === 1n;
  } catch {
    return false;
  }
}

function findTools(): { tools: MountTools } | { missing: string } {
  const tools: Partial<MountTools> = {};
  for (const name of ['unshare', 'mount', 'nsenter', 'env'] as const) {
    const path = TOOL_DIRS.map((dir) => join(dir, name)).find(isExecutable);
    if (!path) return { missing: name };
    tools[name] = path;
  }
  if (!isExecutable('/bin/sh')) return { missing: '/bin/sh' };
  return { tools: { ...(tools as Omit<MountTools, 'sh'>), sh: '/bin/sh' } };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
