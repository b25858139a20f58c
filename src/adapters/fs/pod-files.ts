/** The PodFiles port over --root-dir: the hosts file, termination-message files, subPath checks and env files. */
import { podContainerDirectory, podDirectory, podEtcHostsPath } from '../../domain/pod/pod-paths.js';
import type { PodFiles } from '../../ports/pod-files.js';
import type { Random } from '../../ports/random.js';
import { assertBelowPodDirectory } from '../volumes/pod-confinement.js';
import { readEnvFile } from './env-file-reader.js';
import { ensureHostsFile } from './etc-hosts-file.js';
import { makeDirectories } from './make-directories.js';
import { resolveSubPath } from './subpath-resolver.js';
import { createTerminationMessageFile, readTerminationMessage } from './termination-message-file.js';

export function createPodFiles(rootDir: string, random: Random, nodeHostsPath?: string): PodFiles {
  return {
    async ensureHostsFile(pod, podIPs, clusterDomain) {
      const path = podEtcHostsPath(rootDir, pod.metadata.uid);
      const podDir = podDirectory(rootDir, pod.metadata.uid);
      await makeDirectories(podDir, 0o750);
      await assertBelowPodDirectory({ dir: path, podDir });
      return ensureHostsFile(pod, { path, podIPs, clusterDomain, ...(nodeHostsPath !== undefined ? { nodeHostsPath } : {}) });
    },
    createTerminationMessageFile: async (podUid, containerName) =>
      createTerminationMessageFile(podContainerDirectory(rootDir, podUid, containerName), random, (dir) => assertBelowPodDirectory({ dir, podDir: podDirectory(rootDir, podUid) })),
    resolveSubPath: (mount) => resolveSubPath(mount),
    readEnvFile: (volumePath, path) => readEnvFile(volumePath, path),
    readTerminationMessage: (status) => readTerminationMessage(status),
  };
}
