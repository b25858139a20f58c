/**
 * A static pod as a test kubelet's debug server shows it (`/debug/pods`), for the end-to-end tests
 * that run static pods and read their status without an API server.
 */

/** The fields of a pod's view the tests read. */
export interface DebugPodView {
  uid: string;
  name: string;
  status: {
    phase?: string;
    reason?: string;
    message?: string;
    containerStatuses?: { name: string; state?: { running?: object; terminated?: { reason?: string; exitCode?: number } } }[];
  } | null;
}

/** The static pod `name` of node `node` (the kubelet names it `<name>-<node>`), or undefined while it is not there. */
export async function staticPodView(debugAddress: string, name: string, node: string): Promise<DebugPodView | undefined> {
  const res = await fetch(`http://${debugAddress}/debug/pods`);
  return ((await res.json()) as { pods: DebugPodView[] }).pods.find((p) => p.name === `${name}-${node}`);
}

/** The same pod once every one of its containers runs; undefined before. */
export async function runningStaticPod(debugAddress: string, name: string, node: string): Promise<DebugPodView | undefined> {
  const p = await staticPodView(debugAddress, name, node);
  return p?.status?.containerStatuses?.every((c) => c.state?.running) ? p : undefined;
}
