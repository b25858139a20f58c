/**
 * The node's containerd: the project's own .ci/containerd/up.sh with the sandbox image the suite
 * expects (registry.k8s.io/pause:3.10.1 at v1.35), then every image of the lab's images.sh imported
 * into the CRI namespace, and tagged again under the names the v1.35 suite asks for (E2E_ALIASES). LAB, BRIDGE, POD_SUBNET, CGROUP_PARENT and CNI_NETWORK are handed to up.sh as given,
 * else the run's own defaults, which collide with neither CI's containerd nor the tests'.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { downPrivateContainerd, upPrivateContainerd, type PrivateContainerd } from '../../test/support/containerd-lab.js';
import { runScript } from '../../test/support/kube-lab-scripts.js';
import { buildExtraImages } from './extra-images.js';

export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10.1';

/**
 * The lab builds its images under the names of the suite it was first made for; the v1.35 suite
 * (`e2e.test --list-images`) asks for newer tags of the same images. Each is the same content under
 * the newer name: busybox, agnhost (the binary is KUBE_LAB_BIN's, of the suite's own version), and
 * the run's etcd stand-in, which only serves the gRPC health checks the probe specs make.
 */
export const E2E_ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['registry.k8s.io/e2e-test-images/busybox:1.29-4', 'registry.k8s.io/e2e-test-images/busybox:1.37.0-1'],
  ['registry.k8s.io/e2e-test-images/busybox:1.29-4', 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1'],
  ['registry.k8s.io/e2e-test-images/agnhost:2.43', 'registry.k8s.io/e2e-test-images/agnhost:2.59'],
  ['registry.k8s.io/e2e-test-images/agnhost:2.43', 'registry.k8s.io/e2e-test-images/agnhost:2.55'],
  ['registry.k8s.io/etcd:3.5.6-0', 'registry.k8s.io/etcd:3.6.6-0'],
];

export type Containerd = PrivateContainerd;

const DEFAULTS = { BRIDGE: 'ktsconf', POD_SUBNET: '10.213.0.0/24', CGROUP_PARENT: '/kts-conformance', CNI_NETWORK: 'kts-conformance' };

export function containerdEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [k, env[k] || v]));
  return { ...env, ...own, PAUSE_REF: PAUSE_IMAGE };
}

export const upContainerd = upPrivateContainerd;

export async function downContainerd(c: Pick<Containerd, 'lab'>): Promise<void> {
  await downPrivateContainerd(c.lab);
}

/**
 * Builds the suite's images with the lab's images.sh into `dir`, then the run's own (extra-images.ts:
 * agnhost again, with curl, so it replaces the lab's; nonroot on the lab's busybox), and imports each archive in that order.
 * `labOnly` leaves the run's own out, as the lab's baseline had them.
 */
export async function importSuiteImages(c: Containerd, imagesSh: string, dir: string, labOnly: boolean, hostPathPlugin?: string): Promise<string[]> {
  await runScript('bash', [imagesSh, dir], process.env, 300_000);
  const archives = readdirSync(dir).filter((f) => f.endsWith('.tar')).sort().map((f) => join(dir, f));
  if (!labOnly) archives.push(...buildExtraImages(dir, join(dir, 'agnhost.tar'), join(dir, 'busybox.tar'), hostPathPlugin));
  const socket = c.endpoint.replace(/^unix:\/\//, '');
  for (const a of archives) await runScript('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'import', a], process.env, 120_000);
  const present = await runScript('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'ls', '-q'], process.env, 60_000);
  const tagged: string[] = [];
  for (const [from, to] of E2E_ALIASES) {
    if (!present.split('\n').includes(from)) continue;
    await runScript('ctr', ['--address', socket, '-n', 'k8s.io', 'images', 'tag', '--force', from, to], process.env, 60_000);
    tagged.push(`${to} (= ${from})`);
  }
  return [...archives.map((a) => basename(a)), ...tagged];
}
