/**
 * Writing a pod's /etc/hosts (Go: ensureHostsFile): the content from domain/runtime/etc-hosts.ts,
 * written to `<podDir>/etc-hosts` with mode 0644 whatever the umask (Go chmods after writing; here
 * small-file.ts sets it on the open file).
 * Like Go, the file is rewritten on each container start and not atomically: a container that is
 * running already has it bind-mounted and sees the new content.
 */
import { readFile } from 'node:fs/promises';
import { KubeletError } from '../../domain/errors.js';
import type { Pod } from '../../domain/pod/types.js';
import { etcHostsPath, podHostsFileContent } from '../../domain/runtime/etc-hosts.js';
import { writeSmallFile } from './small-file.js';

const hostsFileMode = 0o644;

export interface EnsureHostsFileInput {
  /** `<podDir>/etc-hosts` (domain/pod/pod-paths.ts). */
  path: string;
  podIPs: readonly string[];
  clusterDomain: string;
  /** The node's hosts file, read for hostNetwork pods; /etc/hosts unless a test says otherwise. */
  nodeHostsPath?: string;
}

/** Writes the pod's hosts file and answers its path (the mount's host side). */
export async function ensureHostsFile(pod: Pod, input: EnsureHostsFileInput): Promise<string> {
  const path = input.path;
  const nodeHostsPath = input.nodeHostsPath ?? etcHostsPath;
  try {
    const nodeHostsFile = pod.spec.hostNetwork ? await readFile(nodeHostsPath, 'utf8') : undefined;
    const content = podHostsFileContent(pod, { podIPs: input.podIPs, clusterDomain: input.clusterDomain, nodeHostsFile });
    await writeSmallFile(path, content, { mode: hostsFileMode });
    return path;
  } catch (err) {
    throw new KubeletError('KLT_ERR_HOST_IO', `cannot write the pod hosts file ${path}: ${(err as Error).message}`, { cause: err });
  }
}
