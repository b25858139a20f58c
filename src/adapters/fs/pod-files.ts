/** The PodFiles port over --root-dir: the hosts file, termination-message files and subPath checks. */
import { mkdir } from 'node:fs/promises';
import { podDirectory } from '../../domain/volumes/pod-volumes.js';
import type { PodFiles } from '../../ports/pod-files.js';
import type { Random } from '../../ports/random.js';
import { ensureHostsFile } from './etc-hosts-file.js';
import { resolveSubPath } from './subpath-resolver.js';
import { createTerminationMessageFile, readTerminationMessage } from './termination-message-file.js';

export function createPodFiles(rootDir: string, random: Random, nodeHostsPath?: string): PodFiles {
  return {
    async ensureHostsFile(pod, podIPs, clusterDomain) {
      const podDir = podDirectory(rootDir, pod.metadata.uid);
      await mkdir(podDir, { recursive: true, mode: 0o750 });
      return ensureHostsFile(pod, { podDir, podIPs, clusterDomain, ...(nodeHostsPath !== undefined ? { nodeHostsPath } : {}) });
    },
    createTerminationMessageFile: (podUid, containerName) => createTerminationMessageFile(podDirectory(rootDir, podUid), containerName, random),
    resolveSubPath: (mount) => resolveSubPath(mount),
    readTerminationMessage: (status) => readTerminationMessage(status),
  };
}
