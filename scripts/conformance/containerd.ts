/**
 * The node's containerd: the project's own .ci/containerd/up.sh with the sandbox image the suite
 * expects (registry.k8s.io/pause:3.9), then every image of the lab's images.sh imported into the CRI
 * namespace. LAB, BRIDGE, POD_SUBNET, CGROUP_PARENT and CNI_NETWORK are handed to up.sh as given,
 * else the run's own defaults, which collide with neither CI's containerd nor the tests'.
 */
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { runScript } from '../../test/support/kube-lab-scripts.js';
import { buildExtraImages } from './extra-images.js';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.9';

export interface Containerd {
  /** unix:// socket */
  endpoint: string;
  lab: string;
  /** Where the kubelets put pods (their cgroupRoot); down.sh removes what is left under it. */
  cgroupParent: string;
}

const DEFAULTS = { BRIDGE: 'ktsconf', POD_SUBNET: '10.213.0.0/24', CGROUP_PARENT: '/kts-conformance', CNI_NETWORK: 'kts-conformance' };

export function containerdEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [k, env[k] || v]));
  return { ...env, ...own, PAUSE_REF: PAUSE_IMAGE };
}

export async function upContainerd(env: NodeJS.ProcessEnv): Promise<Containerd> {
  const out = await runScript('bash', [resolve('.ci/containerd/up.sh')], env, 300_000);
  const exported = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const endpoint = exported.KUBELET_IT_CRI;
  const lab = exported.KUBELET_IT_CRI_LAB;
  if (!endpoint || !lab) throw new Error(`.ci/containerd/up.sh printed no KUBELET_IT_CRI or KUBELET_IT_CRI_LAB:\n${out}`);
  return { endpoint, lab, cgroupParent: exported.KUBELET_IT_CRI_CGROUP_PARENT ?? env.CGROUP_PARENT! };
}

export async function downContainerd(c: Pick<Containerd, 'lab'>): Promise<void> {
  await runScript('bash', [resolve('.ci/containerd/down.sh'), c.lab], process.env, 120_000);
}

/**
 * Builds the suite's images with the lab's images.sh into `dir`, then the run's own (extra-images.ts:
 * agnhost again, with curl, so it replaces the lab's; nonroot on the lab's busybox), and imports each archive in that order.
 * `labOnly` leaves the run's own out, as the lab's baseline had them.
 */
export async function importSuiteImages(c: Containerd, imagesSh: string, dir: string, labOnly: boolean): Promise<string[]> {
  await runScript('bash', [imagesSh, dir], process.env, 300_000);
  const archives = readdirSync(dir).filter((f) => f.endsWith('.tar')).sort().map((f) => join(dir, f));
  if (!labOnly) archives.push(...buildExtraImages(dir, join(dir, 'agnhost.tar'), join(dir, 'busybox.tar')));
  const socket = c.endpoint.replace(/^unix:\/\//, '');
  for (const a of archives) await runScript('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'import', a], process.env, 120_000);
  return archives.map((a) => basename(a));
}
