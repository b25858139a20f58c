/**
 * Records the cluster-mode event log for the replay gate (test/fixtures/eventlogs/cluster-embedded.jsonl):
 * the real binary with --kubeconfig against the test API server on loopback, on the embedded
 * runtime. It registers its Node and keeps its Lease (node status, lease), creates the mirror pod of
 * its static pod (status manager), posts its events, runs a pod created through the API with the
 * volumes a real cluster's pod has (kube-api-access, a ConfigMap, a Secret), rides out
 * a 12 s API server outage (longer than a lease renewal and a node status update, so both fail and recover) during which another pod is created, then kills a pod deleted with a 2 s
 * grace period; then SIGTERM. The pods are removed afterwards.
 *
 *   npm run record:eventlog
 *
 * Each step waits on what the API server shows, so the log holds the whole story at any speed.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { kubeApiAccessVolume, startTestApiServer, type KubeObject } from '../test/apiserver/index.js';
import { removeEmbeddedPods, waitFor } from './record-support.js';

const NODE = 'fixture-node';
const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: record-cluster-eventlog OUT.jsonl\n');
  process.exit(2);
}

const LOOP = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";
const apiPod = (name: string, grace: number) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { nodeName: NODE, terminationGracePeriodSeconds: grace, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', LOOP] }] },
});

/** A real cluster's pod: the admission plugin's kube-api-access volume, a ConfigMap and a Secret mounted. */
function withVolumes(pod: ReturnType<typeof apiPod>) {
  const access = kubeApiAccessVolume('kube-api-access-r7k2x');
  const volumes = [access.volume, { name: 'settings', configMap: { name: 'settings' } }, { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } }];
  const mounts = [access.mount, { name: 'settings', mountPath: '/etc/settings' }, { name: 'creds', mountPath: '/etc/creds', readOnly: true }];
  return { ...pod, spec: { ...pod.spec, serviceAccountName: 'default', volumes, containers: pod.spec.containers.map((c) => ({ ...c, volumeMounts: mounts })) } };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'kts-record-cluster-'));
  const root = join(dir, 'root');
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'static.json'), JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static' },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', command: ['sh', '-c', LOOP] }] },
  }));
  const cfg = join(dir, 'kubelet.yaml');
  writeFileSync(cfg, [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${manifests}`, `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded',
    // A recording makes no cgroups on the host it runs on.
    'cgroupsPerQOS: false', 'enforceNodeAllocatable: []',
    'enableServer: false', 'healthzPort: 0', '',
  ].join('\n'));

  const api = await startTestApiServer();
  const get = (name: string) => api.store.get('pods', 'default', name) as (KubeObject & { status?: { phase?: string } }) | undefined;
  const running = (name: string) => get(name)?.status?.phase === 'Running';
  const renewTime = () => (api.store.get('leases', 'kube-node-lease', NODE) as { spec?: { renewTime?: string } } | undefined)?.spec?.renewTime;
  const child = spawn(process.execPath, [
    resolve('dist/bundle/kubelet.js'), `--config=${cfg}`, `--kubeconfig=${api.kubeconfigPath(dir)}`, `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`,
    '--embedded-runtime-allow-cluster', '--debug-address=', `--hostname-override=${NODE}`,
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));

  await waitFor('the Lease', () => api.store.get('leases', 'kube-node-lease', NODE) !== undefined);
  await waitFor('the static pod\'s mirror Running', () => running(`static-${NODE}`));
  api.store.create('configmaps', { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fixture' } } as never, 'default');
  api.store.create('secrets', { metadata: { name: 'creds', namespace: 'default' }, data: { password: Buffer.from('fixture-password').toString('base64') } } as never, 'default');
  api.store.create('pods', withVolumes(apiPod('web', 2)) as never, 'default');
  await waitFor('web Running', () => running('web'));

  // The fault closes the watches and the listener at once: 'during' is created with no watch open.
  const outage = api.faults.refuseConnections(12_000);
  api.store.create('pods', apiPod('during', 1) as never, 'default');
  await outage;
  const leaseAtReturn = renewTime();
  await waitFor('the Lease renewed after the outage', () => renewTime() !== leaseAtReturn, 30_000);
  await waitFor('during Running after the outage', () => running('during'), 30_000);

  api.store.delete('pods', 'default', 'web', { gracePeriodSeconds: 2 });
  await waitFor('web killed and removed', () => get('web') === undefined, 30_000);

  child.kill('SIGTERM');
  await exited;
  await api.close();
  copyFileSync(join(root, 'events', 'latest.jsonl'), out!);
  await removeEmbeddedPods(root);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`recorded ${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`record-cluster-eventlog failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
