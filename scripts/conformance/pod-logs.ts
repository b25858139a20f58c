/**
 * The Go kubelet v1.26 writes pod logs under /var/log/pods, with links in /var/log/containers, and has
 * no setting to put them elsewhere; it removes a pod's only some time after the pod is gone, so a run's
 * last pods leave theirs behind. The run notes the uid of every pod bound to its node (a watch on the
 * API server) and removes exactly those pods' logs at the end, never another kubelet's.
 */
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { labWatch } from '../../bench/lab-watch.js';
import type { KubeLab } from '../../test/support/kube-lab-up.js';

const POD_LOGS = '/var/log/pods';
const CONTAINER_LOGS = '/var/log/containers';

export interface NodePods {
  uids: Set<string>;
  stop(): void;
}

export async function watchNodePods(lab: Pick<KubeLab, 'dir' | 'ca' | 'server'>, node: string): Promise<NodePods> {
  const uids = new Set<string>();
  // A timeout of a day: otherwise the API server ends a watch after a random 30 to 60 minutes.
  const path = `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}&timeoutSeconds=86400`;
  const watch = await labWatch<{ metadata: { uid: string } }>(lab, path, (e) => uids.add(e.object.metadata.uid));
  return { uids, stop: () => watch.stop() };
}

const entries = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/** Removes the log directories of these pods (named <namespace>_<name>_<uid>) and the links into them. */
export function removePodLogs(uids: ReadonlySet<string>): number {
  const gone = entries(POD_LOGS).filter((d) => uids.has(d.slice(d.lastIndexOf('_') + 1))).map((d) => join(POD_LOGS, d));
  for (const dir of gone) rmSync(dir, { recursive: true, force: true });
  for (const link of entries(CONTAINER_LOGS)) {
    const target = (() => {
      try {
        return readlinkSync(join(CONTAINER_LOGS, link));
      } catch {
        return '';
      }
    })();
    if (gone.some((dir) => target.startsWith(`${dir}/`))) rmSync(join(CONTAINER_LOGS, link), { force: true });
  }
  return gone.length;
}
