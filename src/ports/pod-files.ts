/**
 * The files the kubelet makes for a container beyond its volumes (Go's makeMounts and
 * makePodDataDirs): the pod's managed /etc/hosts, the termination-message file, and subPath
 * targets checked against their volume. Implemented over the node's file system under --root-dir.
 */
import type { Pod } from '../domain/pod/types.js';
import type { ExitedContainerFacts } from '../domain/runtime/termination-message.js';

export interface PodFiles {
  /** Writes <podDir>/etc-hosts for the pod (made with its directory if missing); answers its path. */
  ensureHostsFile(pod: Pod, podIPs: readonly string[], clusterDomain: string): Promise<string>;
  /** Makes an empty, world-writable <podDir>/containers/<name>/<random id>; answers its path. */
  createTerminationMessageFile(podUid: string, containerName: string): Promise<string>;
  /** The node path of `subPath` inside `volumePath`, made if missing, refused if it leaves the volume. */
  resolveSubPath(mount: { volumePath: string; subPath: string; volumeMountName: string; containerName: string }): Promise<string>;
  /** The env file at `path` inside the volume at `volumePath` (`fileKeyRef`), or why it cannot be read; never outside the volume. */
  readEnvFile(volumePath: string, path: string): Promise<{ path: string; text: string } | { path: string; unreadable: string }>;
  /** An exited container's termination message (its file, or its log's tail under FallbackToLogsOnError); '' when none. */
  readTerminationMessage(status: ExitedContainerFacts & { log_path: string }): Promise<string>;
}
